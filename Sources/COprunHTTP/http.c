#define _GNU_SOURCE
#include "oprun_http.h"

#include <curl/curl.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

// Requests go through libcurl, loaded with dlopen(). Where oprun is a static executable (its
// release build), libcurl cannot be loaded into it: a static glibc program that dlopen()s a
// library gets a second C library beside its own, and libcurl crashed at its first https://
// request. So a static oprun sends each request to a helper program, `oprun-http` (this file
// built alone with OPRUN_HTTP_PROGRAM, beside oprun's executable or in ../libexec/oprun/),
// one process per handle, over a socket pair; a dynamically linked oprun without the program
// (a debug build run by `swift test`) loads libcurl itself.

// ---- libcurl in this process -------------------------------------------------------------

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

static const char *curl_load(void) {
  pthread_once(&load_once, load);
  return load_failure;
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

/// One request through libcurl in this process, as oprun_http_perform describes it, into a
/// `result` that says nothing yet.
static int curl_perform(
    CURL *easy, oprun_http_method method, const char *url, const char *authorization,
    oprun_http_sink sink, void *sink_context, oprun_http_source source, void *source_context,
    int64_t body_size, long connect_ms, long stall_ms, long total_ms, oprun_http_result *result) {
  struct transfer transfer = {easy, sink, sink_context, source, source_context};

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

// ---- What oprun and oprun-http say to each other --------------------------------------------

/// The word after the program's name; it changes whenever the messages below do, so that a
/// program left from another version of oprun refuses rather than misreads them.
static const char helper_name[] = "oprun-http";
static const char helper_marker[] = "--oprun-http-channel-1";

/// A request, followed by its URL, its authorization (when `authorization_length` >= 0) and,
/// for a PUT, exactly `body_size` bytes of body.
struct request_header {
  int32_t method;
  int32_t wants_body;
  int32_t url_length;
  int32_t authorization_length;
  int64_t body_size;
  int64_t connect_ms;
  int64_t stall_ms;
  int64_t total_ms;
};

/// What the helper sends: frames, each a header and `length` bytes.
enum frame_kind {
  /// Once, when it starts: empty when libcurl is ready, else why it is not.
  frame_ready = 1,
  /// A piece of a successful GET's body.
  frame_body = 2,
  /// The end of a request: a `struct answer`.
  frame_answer = 3,
};

struct frame_header {
  int32_t kind;
  int32_t length;
};

struct answer {
  int32_t performed;
  oprun_http_result result;
};

/// Writes all of `count` pieces in as few calls as the socket takes them (one, mostly: each
/// call is a wake-up of the other end), or fails (-1) once the other end is gone.
static int send_pieces(int fd, struct iovec *pieces, int count) {
  while (count > 0) {
    struct msghdr message = {.msg_iov = pieces, .msg_iovlen = (size_t)count};
    ssize_t sent = sendmsg(fd, &message, MSG_NOSIGNAL);
    if (sent < 0 && errno == EINTR) continue;
    if (sent < 0) return -1;
    while (count > 0 && (size_t)sent >= pieces->iov_len) {
      sent -= (ssize_t)pieces->iov_len;
      pieces++;
      count--;
    }
    if (count > 0) {
      pieces->iov_base = (char *)pieces->iov_base + sent;
      pieces->iov_len -= (size_t)sent;
    }
  }
  return 0;
}


/// Reads exactly `count` bytes, or fails (-1) at an early end or an error.
static int receive_all(int fd, void *bytes, size_t count) {
  char *next = bytes;
  while (count > 0) {
    ssize_t got = read(fd, next, count);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return -1;
    next += got;
    count -= (size_t)got;
  }
  return 0;
}

#ifdef OPRUN_HTTP_PROGRAM

// ---- oprun-http: requests from oprun, done with libcurl ------------------------------------

static int send_frame(int fd, enum frame_kind kind, const void *bytes, size_t count) {
  struct frame_header header = {kind, (int32_t)count};
  struct iovec pieces[] = {{&header, sizeof header}, {(void *)bytes, count}};
  return send_pieces(fd, pieces, count ? 2 : 1);
}

struct request_body {
  int channel;
  int64_t left;
};

/// A GET's body goes to oprun as it comes; a refusal (oprun gone) aborts the transfer.
static int send_body_piece(void *context, const void *bytes, size_t count) {
  return send_frame(*(int *)context, frame_body, bytes, count) == 0;
}

/// A PUT's body comes from oprun, no more than it announced.
static ssize_t receive_body_piece(void *context, void *buffer, size_t capacity) {
  struct request_body *body = context;
  if (body->left == 0) return 0;
  size_t wanted = capacity < (uint64_t)body->left ? capacity : (size_t)body->left;
  ssize_t got;
  while ((got = read(body->channel, buffer, wanted)) < 0 && errno == EINTR) {
  }
  if (got <= 0) return -1;
  body->left -= got;
  return got;
}

static int serve(int channel) {
  const char *failure = curl_load();
  if (send_frame(channel, frame_ready, failure ? failure : "", failure ? strlen(failure) : 0) != 0 || failure) return 2;
  CURL *easy = curl.easy_init();
  if (!easy) return 2;
  char *text = NULL;
  size_t text_capacity = 0;
  static char discarded[1 << 16];
  for (;;) {
    struct request_header request;
    // The end of the channel: oprun is done with this handle, or gone.
    if (receive_all(channel, &request, sizeof request) != 0) return 0;
    if (request.url_length < 0 || request.authorization_length < -1 || request.body_size < 0) return 2;
    size_t authorization_length = request.authorization_length > 0 ? (size_t)request.authorization_length : 0;
    size_t needed = (size_t)request.url_length + 1 + authorization_length + 1;
    if (needed > text_capacity) {
      free(text);
      text_capacity = needed;
      if (!(text = malloc(text_capacity))) return 2;
    }
    // The URL and the authorization come one after the other: read at once, then each ended.
    if (receive_all(channel, text, (size_t)request.url_length + authorization_length) != 0) return 0;
    char *url = text;
    char *authorization = request.authorization_length >= 0 ? text + request.url_length + 1 : NULL;
    if (authorization) {
      memmove(authorization, text + request.url_length, authorization_length);
      authorization[authorization_length] = 0;
    }
    url[request.url_length] = 0;
    struct request_body body = {channel, request.method == oprun_http_put ? request.body_size : 0};
    struct answer answer;
    memset(&answer, 0, sizeof answer);
    answer.performed = curl_perform(
        easy, (oprun_http_method)request.method, url, authorization, request.wants_body ? send_body_piece : NULL,
        &channel, receive_body_piece, &body, request.body_size, (long)request.connect_ms, (long)request.stall_ms,
        (long)request.total_ms, &answer.result);
    // The token is in no memory that outlives its request.
    if (authorization) explicit_bzero(authorization, authorization_length);
    // What of the body the transfer did not take is read still, so that the next request
    // starts where it should.
    while (body.left > 0) {
      size_t wanted = body.left < (int64_t)sizeof discarded ? (size_t)body.left : sizeof discarded;
      if (receive_all(channel, discarded, wanted) != 0) return 0;
      body.left -= (int64_t)wanted;
    }
    if (send_frame(channel, frame_answer, &answer, sizeof answer) != 0) return 0;
  }
}

/// Holds none of oprun's descriptors but `channel` (returned, moved above 2), with the
/// standard three on /dev/null: a reader of oprun's output sees its end when oprun ends,
/// even while a transfer of this helper's runs on to its time limit.
static int keep_only(int channel) {
  if (channel <= 2) channel = fcntl(channel, F_DUPFD, 3);
  int null_device = open("/dev/null", O_RDWR);
  for (int standard = 0; standard <= 2; standard++) {
    if (null_device >= 0 && null_device != standard) dup2(null_device, standard);
  }
  if (channel > 3) syscall(SYS_close_range, 3, channel - 1, 0);
  syscall(SYS_close_range, channel + 1, ~0U, 0);
  return channel;
}

int main(int argc, char **argv) {
  char *end = NULL;
  long channel = argc == 3 && strcmp(argv[1], helper_marker) == 0 ? strtol(argv[2], &end, 10) : -1;
  int type = 0;
  socklen_t length = sizeof type;
  if (channel < 0 || !end || *end || getsockopt((int)channel, SOL_SOCKET, SO_TYPE, &type, &length) != 0 ||
      type != SOCK_STREAM) {
    fprintf(stderr, "%s: started by oprun for its cache server, not by hand\n", helper_name);
    return 2;
  }
  // Started with every signal blocked: a terminal's signals it ignores (it has a group of its
  // own besides), a write to a gone oprun fails rather than kills.
  signal(SIGPIPE, SIG_IGN);
  signal(SIGINT, SIG_IGN);
  signal(SIGQUIT, SIG_IGN);
  signal(SIGTSTP, SIG_IGN);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, NULL);
  if (chdir("/") != 0) return 2;
  return serve(keep_only((int)channel));
}

#else

// ---- In oprun: each handle a curl handle here, or an oprun-http process ----------------------

#include "oprun_system.h"

/// Writes all of `count` bytes, or fails (-1) once the other end is gone.
static int send_all(int fd, const void *bytes, size_t count) {
  struct iovec piece = {(void *)bytes, count};
  return send_pieces(fd, &piece, 1);
}

enum mode { mode_unknown, mode_curl, mode_helper, mode_none };
static enum mode mode = mode_unknown;
static const char *mode_failure = NULL;
static char helper_program[4096];
static pthread_once_t mode_chosen = PTHREAD_ONCE_INIT;

static void choose_mode(void) {
  if (oprun_find_helper_program(helper_name, helper_program, sizeof helper_program)) {
    mode = mode_helper;
  } else if (getauxval(AT_BASE) != 0) {
    // Linked dynamically: an interpreter (the dynamic loader) was mapped for it.
    mode = (mode_failure = curl_load()) ? mode_none : mode_curl;
  } else {
    mode = mode_none;
    mode_failure = "oprun-http is missing beside oprun's executable (or in ../libexec/oprun/): "
                   "oprun speaks to a cache server through it; install oprun again (make install)";
  }
}

const char *oprun_http_load(void) {
  pthread_once(&mode_chosen, choose_mode);
  return mode_failure;
}

struct oprun_http_handle {
  /// In this process: the curl handle.
  CURL *easy;
  /// Else the channel to this handle's oprun-http, -1 when it has none (yet, or any more).
  int channel;
  /// What came from the helper and is not taken yet: `input[input_start..<input_end]`. Read
  /// as much as is there at a time, so that a frame's header and what follows it are mostly
  /// one read.
  char input[1 << 16];
  size_t input_start, input_end;
  /// Where a PUT's body is filled, piece by piece.
  char output[1 << 16];
};

/// Reads what the helper has sent into an empty input; -1 at its end or an error.
static int refill(oprun_http_handle *handle) {
  ssize_t got;
  while ((got = read(handle->channel, handle->input, sizeof handle->input)) < 0 && errno == EINTR) {
  }
  if (got <= 0) return -1;
  handle->input_start = 0;
  handle->input_end = (size_t)got;
  return 0;
}

/// Takes exactly `count` bytes the helper sent, or fails (-1) at its end or an error.
static int take(oprun_http_handle *handle, void *bytes, size_t count) {
  char *next = bytes;
  while (count > 0) {
    if (handle->input_start == handle->input_end && refill(handle) != 0) return -1;
    size_t piece = handle->input_end - handle->input_start;
    if (piece > count) piece = count;
    memcpy(next, handle->input + handle->input_start, piece);
    handle->input_start += piece;
    next += piece;
    count -= piece;
  }
  return 0;
}

/// Starts the handle's oprun-http and waits for its word that libcurl is ready: 0, or -1
/// with why not in `message`.
static int start_helper(oprun_http_handle *handle, char *message, size_t size) {
  int ends[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0) {
    snprintf(message, size, "cannot make a socket for oprun-http: %s", strerror(errno));
    return -1;
  }
  char channel_text[24];
  snprintf(channel_text, sizeof channel_text, "%d", ends[1]);
  char *arguments[] = {(char *)helper_name, (char *)helper_marker, channel_text, 0};
  const char *programs[] = {helper_program, 0};
  pid_t helper = oprun_start_detached(programs, arguments, ends[1], NULL, NULL);
  int start_error = errno;
  close(ends[1]);
  struct frame_header ready;
  if (helper < 0 || receive_all(ends[0], &ready, sizeof ready) != 0 || ready.kind != frame_ready ||
      ready.length < 0 || (size_t)ready.length >= size) {
    snprintf(message, size, "cannot start %s: %s", helper_program, helper < 0 ? strerror(start_error) : "it stopped");
    close(ends[0]);
    return -1;
  }
  if (ready.length > 0) {
    if (receive_all(ends[0], message, (size_t)ready.length) != 0) ready.length = 0;
    message[ready.length] = 0;
    close(ends[0]);
    return -1;
  }
  handle->channel = ends[0];
  return 0;
}

static void stop_helper(oprun_http_handle *handle) {
  // Its next read or write fails, and it exits.
  if (handle->channel >= 0) close(handle->channel);
  handle->channel = -1;
  handle->input_start = handle->input_end = 0;
}

oprun_http_handle *oprun_http_handle_new(char *failure, size_t size) {
  if (size) failure[0] = 0;
  if (oprun_http_load()) {
    snprintf(failure, size, "%s", mode_failure);
    return NULL;
  }
  oprun_http_handle *handle = calloc(1, sizeof *handle);
  if (!handle) {
    snprintf(failure, size, "out of memory");
    return NULL;
  }
  handle->channel = -1;
  if (mode == mode_curl) {
    handle->easy = curl.easy_init();
    if (!handle->easy) {
      snprintf(failure, size, "libcurl could not make a handle");
      free(handle);
      return NULL;
    }
  } else if (start_helper(handle, failure, size) != 0) {
    free(handle);
    return NULL;
  }
  return handle;
}

void oprun_http_handle_free(oprun_http_handle *handle) {
  if (!handle) return;
  if (handle->easy) curl.easy_cleanup(handle->easy);
  stop_helper(handle);
  free(handle);
}

/// A request the helper could not finish: the handle's helper is let go (the next request
/// starts another), and the request fails with libcurl's `code` and `message`.
static int fail_with_helper(oprun_http_handle *handle, int code, const char *message, oprun_http_result *result) {
  stop_helper(handle);
  result->failure = code;
  snprintf(result->message, sizeof result->message, "%s", message);
  return -1;
}

static int helper_perform(
    oprun_http_handle *handle, oprun_http_method method, const char *url, const char *authorization,
    oprun_http_sink sink, void *sink_context, oprun_http_source source, void *source_context,
    int64_t body_size, long connect_ms, long stall_ms, long total_ms, oprun_http_result *result) {
  if (handle->channel < 0 && start_helper(handle, result->message, sizeof result->message) != 0) {
    result->failure = CURLE_FAILED_INIT;
    return -1;
  }
  size_t url_length = strlen(url), authorization_length = authorization ? strlen(authorization) : 0;
  int64_t put_size = method == oprun_http_put ? body_size : 0;
  struct request_header request = {
    method, sink != NULL, (int32_t)url_length, authorization ? (int32_t)authorization_length : -1,
    put_size, connect_ms, stall_ms, total_ms};
  const char *gone = "oprun-http stopped";
  struct iovec pieces[] = {
    {&request, sizeof request}, {(void *)url, url_length}, {(void *)authorization, authorization_length}};
  if (send_pieces(handle->channel, pieces, authorization ? 3 : 2) != 0) {
    return fail_with_helper(handle, CURLE_SEND_ERROR, gone, result);
  }
  for (int64_t left = put_size; left > 0;) {
    size_t wanted = left < (int64_t)sizeof handle->output ? (size_t)left : sizeof handle->output;
    ssize_t filled = source(source_context, handle->output, wanted);
    if (filled <= 0) return fail_with_helper(handle, CURLE_ABORTED_BY_CALLBACK, "the request's body ended early", result);
    if (send_all(handle->channel, handle->output, (size_t)filled) != 0) {
      return fail_with_helper(handle, CURLE_SEND_ERROR, gone, result);
    }
    left -= filled;
  }
  for (;;) {
    struct frame_header frame;
    if (take(handle, &frame, sizeof frame) != 0 || frame.length < 0) {
      return fail_with_helper(handle, CURLE_RECV_ERROR, gone, result);
    }
    if (frame.kind == frame_answer) {
      struct answer answer;
      if (frame.length != (int32_t)sizeof answer || take(handle, &answer, sizeof answer) != 0) {
        return fail_with_helper(handle, CURLE_RECV_ERROR, gone, result);
      }
      *result = answer.result;
      result->message[sizeof result->message - 1] = 0;
      return answer.performed == 0 ? 0 : -1;
    }
    if (frame.kind != frame_body || !sink) return fail_with_helper(handle, CURLE_RECV_ERROR, gone, result);
    // Each piece is handed over where it was read.
    for (int32_t left = frame.length; left > 0;) {
      if (handle->input_start == handle->input_end && refill(handle) != 0) {
        return fail_with_helper(handle, CURLE_RECV_ERROR, gone, result);
      }
      size_t piece = handle->input_end - handle->input_start;
      if (piece > (size_t)left) piece = (size_t)left;
      const char *bytes = handle->input + handle->input_start;
      handle->input_start += piece;
      // The rest of the body is not wanted: letting the helper go ends its transfer.
      if (!sink(sink_context, bytes, piece)) {
        return fail_with_helper(handle, CURLE_WRITE_ERROR, "Failure writing output to destination", result);
      }
      left -= (int32_t)piece;
    }
  }
}

int oprun_http_perform(
    oprun_http_handle *handle, oprun_http_method method, const char *url, const char *authorization,
    oprun_http_sink sink, void *sink_context, oprun_http_source source, void *source_context,
    int64_t body_size, long connect_ms, long stall_ms, long total_ms, oprun_http_result *result) {
  result->status = 0;
  result->failure = 0;
  result->message[0] = 0;
  if (handle->easy) {
    return curl_perform(handle->easy, method, url, authorization, sink, sink_context, source, source_context,
                        body_size, connect_ms, stall_ms, total_ms, result);
  }
  return helper_perform(handle, method, url, authorization, sink, sink_context, source, source_context, body_size,
                        connect_ms, stall_ms, total_ms, result);
}

#endif
