/* A loopback HTTP/1.1 server for download tests: 127.0.0.1 on an ephemeral
 * port, one connection at a time on its own thread, every response
 * "Connection: close". The handler decides each answer. */
#ifndef HRX_TESTS_TEST_HTTP_H_
#define HRX_TESTS_TEST_HTTP_H_

#include <stdbool.h>
#include <stddef.h>

typedef struct test_http_request_t {
  char method[16];
  char path[1024];
  char headers[4096]; /* the raw header lines after the request line */
} test_http_request_t;

/* Called on the server thread with the accepted socket; the server closes
 * it afterwards. */
typedef void (*test_http_handler_fn)(void* context, int fd,
                                     const test_http_request_t* request);

typedef struct test_http_server_t test_http_server_t;

test_http_server_t* test_http_server_start(test_http_handler_fn handler,
                                           void* context);
int test_http_server_port(const test_http_server_t* server);
void test_http_server_stop(test_http_server_t* server);

/* Writes all of |data|, giving up quietly when the client has gone. */
void test_http_send(int fd, const void* data, size_t length);

/* "HTTP/1.1 <status>" with Content-Length |length|, |extra_headers| (each
 * line ending in \r\n; may be NULL) and, unless the request is HEAD, the
 * body. */
void test_http_respond(int fd, const test_http_request_t* request,
                       const char* status, const char* extra_headers,
                       const void* body, size_t length);

/* The value of header |name| (case-insensitive) in |out|; false when the
 * request has none. */
bool test_http_header(const test_http_request_t* request, const char* name,
                      char* out, size_t size);

#endif /* HRX_TESTS_TEST_HTTP_H_ */
