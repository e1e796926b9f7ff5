// Placeholder: the front end replaces this file.
"use strict";
document.addEventListener("DOMContentLoaded", () => {
  fetch("/ui/api/session").then((r) => r.json()).then((s) => {
    const p = document.createElement("p");
    p.textContent = s.user === null ? "signed in: (no auth)" : "signed in: " + s.user;
    document.getElementById("app").appendChild(p);
  });
});
