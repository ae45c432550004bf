#define _GNU_SOURCE
#include "oprun_http.h"

#include <curl/curl.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

// libcurl's header gives the types and constants; its functions are resolved at run time,
// so that the binary has no link-time dependency on libcurl.
static struct {
  CURLcode (*global_init)(long flags);
  CURL *(*easy_init)(void);
  CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
  CURLcode (*easy_perform)(CURL *);
  CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
  void (*easy_reset)(CURL *);
  void (*easy_cleanup)(CURL *);
  struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
  void (*slist_free_all)(struct curl_slist *);
  const char *(*easy_strerror)(CURLcode);
} curl;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static const char *load_failure = "libcurl was never loaded";

static void load(void) {
  void *library = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    load_failure = "libcurl.so.4 not found: install libcurl4";
    return;
  }
#define RESOLVE(field, symbol)                                              \
  if (!(*(void **)&curl.field = dlsym(library, symbol))) {                  \
    load_failure = "libcurl.so.4 lacks " symbol ": install a newer libcurl4"; \
    return;                                                                 \
  }
  RESOLVE(global_init, "curl_global_init")
  RESOLVE(easy_init, "curl_easy_init")
  RESOLVE(easy_setopt, "curl_easy_setopt")
  RESOLVE(easy_perform, "curl_easy_perform")
  RESOLVE(easy_getinfo, "curl_easy_getinfo")
  RESOLVE(easy_reset, "curl_easy_reset")
  RESOLVE(easy_cleanup, "curl_easy_cleanup")
  RESOLVE(slist_append, "curl_slist_append")
  RESOLVE(slist_free_all, "curl_slist_free_all")
  RESOLVE(easy_strerror, "curl_easy_strerror")
#undef RESOLVE
  // curl_global_init is not thread-safe: it runs here, once, before any handle exists.
  if (curl.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
    load_failure = "libcurl could not be initialised";
    return;
  }
  load_failure = NULL;
}

const char *oprun_http_load(void) {
  pthread_once(&load_once, load);
  return load_failure;
}

struct oprun_http_handle {
  CURL *easy;
};

oprun_http_handle *oprun_http_handle_new(void) {
  if (oprun_http_load()) return NULL;
  oprun_http_handle *handle = calloc(1, sizeof *handle);
  if (!handle) return NULL;
  handle->easy = curl.easy_init();
  if (!handle->easy) {
    free(handle);
    return NULL;
  }
  return handle;
}

void oprun_http_handle_free(oprun_http_handle *handle) {
  if (!handle) return;
  curl.easy_cleanup(handle->easy);
  free(handle);
}

struct transfer {
  CURL *easy;
  oprun_http_sink sink;
  void *sink_context;
  oprun_http_source source;
  void *source_context;
};

static size_t received(char *bytes, size_t size, size_t count, void *context) {
  struct transfer *transfer = context;
  size_t total = size * count;
  long status = 0;
  curl.easy_getinfo(transfer->easy, CURLINFO_RESPONSE_CODE, &status);
  // The body of an error page is not the blob asked for.
  if (status < 200 || status > 299 || !transfer->sink) return total;
  return transfer->sink(transfer->sink_context, bytes, total) ? total : 0;
}

static size_t send_body(char *buffer, size_t size, size_t count, void *context) {
  struct transfer *transfer = context;
  ssize_t filled = transfer->source(transfer->source_context, buffer, size * count);
  return filled < 0 ? CURL_READFUNC_ABORT : (size_t)filled;
}

int oprun_http_perform(
    oprun_http_handle *handle, oprun_http_method method, const char *url, const char *authorization,
    oprun_http_sink sink, void *sink_context, oprun_http_source source, void *source_context,
    int64_t body_size, long connect_ms, long stall_ms, long total_ms, oprun_http_result *result) {
  CURL *easy = handle->easy;
  struct transfer transfer = {easy, sink, sink_context, source, source_context};
  result->status = 0;
  result->failure = 0;
  result->message[0] = 0;

  // A reset handle keeps its connections (and DNS answers): only the options go.
  curl.easy_reset(easy);
  struct curl_slist *headers = curl.slist_append(NULL, "Expect:");
  char *authorization_header = NULL;
  if (authorization) {
    size_t length = strlen("Authorization: ") + strlen(authorization) + 1;
    authorization_header = malloc(length);
    if (authorization_header) {
      strcpy(authorization_header, "Authorization: ");
      strcat(authorization_header, authorization);
      headers = curl.slist_append(headers, authorization_header);
    }
  }
  if (!headers || (authorization && !authorization_header)) {
    result->failure = CURLE_OUT_OF_MEMORY;
    strcpy(result->message, "out of memory");
    if (headers) curl.slist_free_all(headers);
    free(authorization_header);
    return -1;
  }

  curl.easy_setopt(easy, CURLOPT_URL, url);
  curl.easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
  curl.easy_setopt(easy, CURLOPT_HTTPHEADER, headers);
  curl.easy_setopt(easy, CURLOPT_ERRORBUFFER, result->message);
  curl.easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS, connect_ms);
  curl.easy_setopt(easy, CURLOPT_LOW_SPEED_LIMIT, 1L);
  curl.easy_setopt(easy, CURLOPT_LOW_SPEED_TIME, (stall_ms + 999) / 1000);
  if (total_ms > 0) curl.easy_setopt(easy, CURLOPT_TIMEOUT_MS, total_ms);
  curl.easy_setopt(easy, CURLOPT_TCP_KEEPALIVE, 1L);
  curl.easy_setopt(easy, CURLOPT_WRITEFUNCTION, received);
  curl.easy_setopt(easy, CURLOPT_WRITEDATA, &transfer);
  curl.easy_setopt(easy, CURLOPT_BUFFERSIZE, 512L * 1024);
  switch (method) {
  case oprun_http_get:
    curl.easy_setopt(easy, CURLOPT_HTTPGET, 1L);
    break;
  case oprun_http_head:
    curl.easy_setopt(easy, CURLOPT_NOBODY, 1L);
    break;
  case oprun_http_put:
    curl.easy_setopt(easy, CURLOPT_UPLOAD, 1L);
    curl.easy_setopt(easy, CURLOPT_READFUNCTION, send_body);
    curl.easy_setopt(easy, CURLOPT_READDATA, &transfer);
    curl.easy_setopt(easy, CURLOPT_INFILESIZE_LARGE, (curl_off_t)body_size);
    curl.easy_setopt(easy, CURLOPT_UPLOAD_BUFFERSIZE, 512L * 1024);
    break;
  }

  CURLcode code = curl.easy_perform(easy);
  curl.easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &result->status);
  // Nothing of the request may outlive it: the header held the token.
  curl.easy_setopt(easy, CURLOPT_HTTPHEADER, NULL);
  curl.easy_setopt(easy, CURLOPT_ERRORBUFFER, NULL);
  curl.slist_free_all(headers);
  if (authorization_header) {
    explicit_bzero(authorization_header, strlen(authorization_header));
    free(authorization_header);
  }
  if (code != CURLE_OK) {
    result->failure = (int)code;
    if (!result->message[0]) {
      strncpy(result->message, curl.easy_strerror(code), sizeof result->message - 1);
      result->message[sizeof result->message - 1] = 0;
    }
    return -1;
  }
  return 0;
}
