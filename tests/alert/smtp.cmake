# The SMTP sender against a real SMTP server: aiosmtpd on loopback with STARTTLS, AUTH and a
# throwaway test CA, plus raw-socket servers that misbehave (skipped, exit 77, without Debian's
# python3-aiosmtpd or the openssl command). smtp_send_tool sends one message through SendSmtp.
add_executable(smtp_send_tool ${CMAKE_CURRENT_LIST_DIR}/smtp_send_tool.cc)
target_link_libraries(smtp_send_tool PRIVATE sluice::alert)
add_test(NAME alert_smtp_e2e
  COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/smtp_e2e.py
          --tool $<TARGET_FILE:smtp_send_tool>)
set_tests_properties(alert_smtp_e2e PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
# The URL grammar and the message on the wire (smtp_internal.h), without a server.
sluice_test(NAME alert_smtp_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/smtp_message_test.cc
  DEPS sluice::alert)
