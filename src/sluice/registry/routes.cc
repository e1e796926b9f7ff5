// The route table: every endpoint of the registry's REST API, its permission and its handler.
#include "sluice/registry/service_internal.h"

namespace sluice::registry::internal {
namespace {

constexpr Permission kRead = Permission::kRead;
constexpr Permission kWrite = Permission::kWrite;
constexpr Permission kAdmin = Permission::kAdmin;
// The handler filters by what the caller may read, or the answer is fixed and public.
constexpr Access kOwn = Access::kHandler;
constexpr Access kSubject = Access::kSubject;

using S = Service;

// A route's metrics name is its method and pattern ("GET /schemas/ids/{id}"): renaming a pattern
// renames a metric.
constexpr Route kRoutes[] = {
    {"GET", "/", kRead, kOwn, nullptr, "{}"},
    {"POST", "/", kRead, kOwn, nullptr, "{}"},
    {"GET", "/schemas", kRead, kOwn, &S::ListSchemas},
    {"GET", "/schemas/types", kRead, kOwn, nullptr, R"(["JSON","AVRO"])"},
    {"GET", "/schemas/ids/{id}", kRead, kOwn, &S::GetSchemaById},
    {"GET", "/schemas/ids/{id}/schema", kRead, kOwn, &S::GetSchemaText},
    {"GET", "/schemas/ids/{id}/subjects", kRead, kOwn, &S::IdSubjects},
    {"GET", "/schemas/ids/{id}/versions", kRead, kOwn, &S::IdVersions},
    {"GET", "/subjects", kRead, kOwn, &S::ListSubjects},
    {"POST", "/subjects/{subject}", kRead, kSubject, &S::LookupSchema},
    {"DELETE", "/subjects/{subject}", kAdmin, kSubject, &S::DeleteSubject},
    {"GET", "/subjects/{subject}/versions", kRead, kSubject, &S::ListVersions},
    {"POST", "/subjects/{subject}/versions", kWrite, kSubject, &S::RegisterSchema},
    {"GET", "/subjects/{subject}/versions/{version}", kRead, kSubject, &S::GetVersion},
    {"DELETE", "/subjects/{subject}/versions/{version}", kAdmin, kSubject, &S::DeleteVersion},
    {"GET", "/subjects/{subject}/versions/{version}/schema", kRead, kSubject, &S::GetVersionText},
    {"GET", "/subjects/{subject}/versions/{version}/referencedby", kRead, kSubject,
     &S::ReferencedBy},
    {"POST", "/compatibility/subjects/{subject}/versions", kRead, kSubject,
     &S::CheckAgainstSubject},
    {"POST", "/compatibility/subjects/{subject}/versions/{version}", kRead, kSubject,
     &S::CheckAgainstVersion},
    {"GET", "/config", kRead, kSubject, &S::GetConfig},
    {"PUT", "/config", kAdmin, kSubject, &S::PutConfig},
    {"DELETE", "/config", kAdmin, kSubject, &S::DeleteConfig},
    {"GET", "/config/{subject}", kRead, kSubject, &S::GetConfig},
    {"PUT", "/config/{subject}", kAdmin, kSubject, &S::PutConfig},
    {"DELETE", "/config/{subject}", kAdmin, kSubject, &S::DeleteConfig},
    {"GET", "/mode", kRead, kSubject, &S::GetMode},
    {"PUT", "/mode", kAdmin, kSubject, &S::PutMode},
    {"DELETE", "/mode", kAdmin, kSubject, &S::DeleteMode},
    {"GET", "/mode/{subject}", kRead, kSubject, &S::GetMode},
    {"PUT", "/mode/{subject}", kAdmin, kSubject, &S::PutMode},
    {"DELETE", "/mode/{subject}", kAdmin, kSubject, &S::DeleteMode},
    {"GET", "/v1/metadata/id", kRead, kOwn, nullptr,
     R"({"id":"sluice","scope":{"path":[],"clusters":{}}})"},
    {"GET", "/v1/metadata/version", kRead, kOwn, nullptr,
     R"({"version":"7.5.0","commitId":"sluice"})"},
    {"GET", "/contexts", kRead, kOwn, nullptr, R"(["."])"},
};

}  // namespace

std::span<const Route> RegistryRoutes() { return kRoutes; }

}  // namespace sluice::registry::internal
