#include "test_http.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

struct test_http_server_t {
  int listener;
  int port;
  pthread_t thread;
  atomic_bool stop;
  test_http_handler_fn handler;
  void* context;
};

void test_http_send(int fd, const void* data, size_t length) {
  const char* at = data;
  while (length) {
    ssize_t n = send(fd, at, length, MSG_NOSIGNAL);
    if (n <= 0) return;
    at += n;
    length -= (size_t)n;
  }
}

void test_http_respond(int fd, const test_http_request_t* request,
                       const char* status, const char* extra_headers,
                       const void* body, size_t length) {
  char header[2048];
  snprintf(header, sizeof(header),
           "HTTP/1.1 %s\r\nContent-Length: %zu\r\n%sConnection: close\r\n\r\n",
           status, length, extra_headers ? extra_headers : "");
  test_http_send(fd, header, strlen(header));
  if (strcmp(request->method, "HEAD") != 0 && length) {
    test_http_send(fd, body, length);
  }
}

bool test_http_header(const test_http_request_t* request, const char* name,
                      char* out, size_t size) {
  size_t name_length = strlen(name);
  for (const char* line = request->headers; *line;) {
    const char* end = strstr(line, "\r\n");
    if (!end) end = line + strlen(line);
    if ((size_t)(end - line) > name_length && line[name_length] == ':' &&
        strncasecmp(line, name, name_length) == 0) {
      const char* value = line + name_length + 1;
      while (*value == ' ') ++value;
      size_t n = (size_t)(end - value);
      if (n >= size) n = size - 1;
      memcpy(out, value, n);
      out[n] = '\0';
      return true;
    }
    line = *end ? end + 2 : end;
  }
  return false;
}

static void serve_one(test_http_server_t* s, int fd) {
  char buffer[sizeof(((test_http_request_t*)0)->headers) + 1200];
  size_t used = 0;
  while (used < sizeof(buffer) - 1) {
    ssize_t n = recv(fd, buffer + used, sizeof(buffer) - 1 - used, 0);
    if (n <= 0) break;
    used += (size_t)n;
    buffer[used] = '\0';
    if (strstr(buffer, "\r\n\r\n")) break;
  }
  buffer[used] = '\0';
  test_http_request_t request = {0};
  if (sscanf(buffer, "%15s %1023s", request.method, request.path) != 2) {
    return;
  }
  const char* headers = strstr(buffer, "\r\n");
  if (headers) {
    snprintf(request.headers, sizeof(request.headers), "%s", headers + 2);
  }
  s->handler(s->context, fd, &request);
}

static void* serve(void* arg) {
  test_http_server_t* s = arg;
  while (!atomic_load(&s->stop)) {
    struct pollfd p = {.fd = s->listener, .events = POLLIN};
    if (poll(&p, 1, 50) <= 0) continue;
    int fd = accept(s->listener, NULL, NULL);
    if (fd < 0) continue;
    serve_one(s, fd);
    close(fd);
  }
  return NULL;
}

test_http_server_t* test_http_server_start(test_http_handler_fn handler,
                                           void* context) {
  test_http_server_t* s = calloc(1, sizeof(*s));
  if (!s) abort();
  s->handler = handler;
  s->context = context;
  s->listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  struct sockaddr_in address = {.sin_family = AF_INET,
                                .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  socklen_t size = sizeof(address);
  if (s->listener < 0 ||
      bind(s->listener, (struct sockaddr*)&address, sizeof(address)) != 0 ||
      listen(s->listener, 16) != 0 ||
      getsockname(s->listener, (struct sockaddr*)&address, &size) != 0) {
    abort();
  }
  s->port = ntohs(address.sin_port);
  if (pthread_create(&s->thread, NULL, serve, s) != 0) abort();
  return s;
}

int test_http_server_port(const test_http_server_t* server) {
  return server->port;
}

void test_http_server_stop(test_http_server_t* server) {
  if (!server) return;
  atomic_store(&server->stop, true);
  pthread_join(server->thread, NULL);
  close(server->listener);
  free(server);
}
