#ifndef OPRUN_HTTP_H
#define OPRUN_HTTP_H
// HTTP requests through libcurl, loaded with dlopen() on first use (by the helper program
// oprun-http where oprun is a static executable; see http.c): a run without an HTTP cache
// never maps libcurl, and a machine without it gets a message instead of a failure to
// start. Nothing of libcurl's own header is visible from here.

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/// Finds oprun-http, or loads libcurl.so.4 and initialises it, once per process; later calls
/// return the first answer. NULL when requests can be made, else why not (a static string).
const char *oprun_http_load(void);

/// One connection's worth of state (a curl easy handle, here or in an oprun-http process of
/// its own): used by one thread at a time, kept across requests so that its connection is
/// reused. NULL, with why in `failure` (`size` bytes), when none can be made.
typedef struct oprun_http_handle oprun_http_handle;
oprun_http_handle *oprun_http_handle_new(char *failure, size_t size);
void oprun_http_handle_free(oprun_http_handle *handle);

typedef enum {
  oprun_http_get = 0,
  oprun_http_head = 1,
  oprun_http_put = 2,
} oprun_http_method;

/// Takes `count` bytes of a successful response's body; returns 0 to abort the transfer.
typedef int (*oprun_http_sink)(void *context, const void *bytes, size_t count);
/// Fills at most `capacity` bytes of a request's body; returns how many (0 at its end), or
/// -1 to abort the transfer.
typedef ssize_t (*oprun_http_source)(void *context, void *buffer, size_t capacity);

typedef struct {
  /// The HTTP status, 0 when no response came.
  long status;
  /// 0, or libcurl's code for why the transfer failed.
  int failure;
  /// libcurl's words for the failure, or "".
  char message[256];
} oprun_http_result;

/// Performs one request on `handle`: `authorization` (a whole header value, or NULL) is sent
/// and never kept; a GET's body goes to `sink` only when the status is 2xx; a PUT's body of
/// `body_size` bytes comes from `source`. No connection within `connect_ms`, no byte moving
/// for `stall_ms`, or (when nonzero) the whole request taking longer than `total_ms` fails
/// it. Returns 0 when a response came (whatever its status), else -1; `result` says which.
int oprun_http_perform(
    oprun_http_handle *handle, oprun_http_method method, const char *url, const char *authorization,
    oprun_http_sink sink, void *sink_context, oprun_http_source source, void *source_context,
    int64_t body_size, long connect_ms, long stall_ms, long total_ms, oprun_http_result *result);

#endif
