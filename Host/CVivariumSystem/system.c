#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <pty.h>
#include <fcntl.h>
#include <time.h>
#include <string.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <spawn.h>
#include <unistd.h>

#include "CVivariumSystem.h"

int vivarium_pipe_cloexec(int fds[2]) { return pipe2(fds, O_CLOEXEC); }

int vivarium_spawn_add_closefrom(posix_spawn_file_actions_t *actions, int from) {
  return posix_spawn_file_actions_addclosefrom_np(actions, from);
}

int vivarium_die_with_parent(pid_t parent) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  return getppid() == parent ? 0 : -1;
}

/* The terminal guard's state: written once before the handlers are
   installed, read only by them. */
static volatile sig_atomic_t guard_active = 0;
static int guard_fd = -1;
static struct termios guard_saved;
static char guard_restore[256];
static size_t guard_length = 0;

static const int fatal_signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGFPE, SIGABRT};
#define FATAL_COUNT (sizeof fatal_signals / sizeof fatal_signals[0])
static struct sigaction previous_fatal[FATAL_COUNT];
static int fatal_installed = 0;

void vivarium_terminal_guard_restore(void) {
  if (!guard_active) return;
  size_t written = 0;
  while (written < guard_length) {
    ssize_t n = write(guard_fd, guard_restore + written, guard_length - written);
    if (n <= 0) break;
    written += (size_t)n;
  }
  tcsetattr(guard_fd, TCSADRAIN, &guard_saved);
}

/* The crash log: a descriptor opened for appending, written once by the
   fatal handler. */
static int crash_log_fd = -1;

/* Appends `text` (`length` bytes) to `buffer` at `*at`, within `size`. */
static void put(char *buffer, size_t size, size_t *at, const char *text, size_t length) {
  for (size_t i = 0; i < length && *at < size; i++) buffer[(*at)++] = text[i];
}

/* Appends `value` as `width` decimal digits (zero-padded). */
static void put_number(char *buffer, size_t size, size_t *at, long value, int width) {
  char digits[20];
  for (int i = width - 1; i >= 0; i--) {
    digits[i] = (char)('0' + value % 10);
    value /= 10;
  }
  put(buffer, size, at, digits, (size_t)width);
}

/* One line in the log's own form (`2026-11-25T01:02:03Z error host: …`),
   async-signal-safe: the date from days since 1970 by Howard Hinnant's
   civil_from_days, no locale, no allocation. */
static void write_crash_line(int signal) {
  if (crash_log_fd < 0) return;
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  long seconds = (long)now.tv_sec, days = seconds / 86400, rest = seconds % 86400;
  long z = days + 719468, era = z / 146097, doe = z - era * 146097;
  long yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  long doy = doe - (365 * yoe + yoe / 4 - yoe / 100), mp = (5 * doy + 2) / 153;
  long day = doy - (153 * mp + 2) / 5 + 1, month = mp < 10 ? mp + 3 : mp - 9;
  long year = yoe + era * 400 + (month <= 2);
  char line[256];
  size_t at = 0;
  put_number(line, sizeof line, &at, year, 4);
  put(line, sizeof line, &at, "-", 1);
  put_number(line, sizeof line, &at, month, 2);
  put(line, sizeof line, &at, "-", 1);
  put_number(line, sizeof line, &at, day, 2);
  put(line, sizeof line, &at, "T", 1);
  put_number(line, sizeof line, &at, rest / 3600, 2);
  put(line, sizeof line, &at, ":", 1);
  put_number(line, sizeof line, &at, rest / 60 % 60, 2);
  put(line, sizeof line, &at, ":", 1);
  put_number(line, sizeof line, &at, rest % 60, 2);
  static const char middle[] = "Z error host: vivarium crashed: signal ";
  put(line, sizeof line, &at, middle, sizeof middle - 1);
  put_number(line, sizeof line, &at, signal, signal >= 10 ? 2 : 1);
  const char *name = sigabbrev_np(signal);
  if (name) {
    put(line, sizeof line, &at, " (SIG", 5);
    put(line, sizeof line, &at, name, strlen(name));
    put(line, sizeof line, &at, ")", 1);
  }
  static const char tail[] = "; its crash report is on the standard error it had\n";
  put(line, sizeof line, &at, tail, sizeof tail - 1);
  ssize_t ignored = write(crash_log_fd, line, at);
  (void)ignored;
}

static void fatal_handler(int signal, siginfo_t *info, void *context) {
  vivarium_terminal_guard_restore();
  guard_active = 0;
  write_crash_line(signal);
  crash_log_fd = -1;
  for (size_t i = 0; i < FATAL_COUNT; i++) {
    if (fatal_signals[i] != signal) continue;
    struct sigaction *previous = &previous_fatal[i];
    sigaction(signal, previous, NULL);
    if ((previous->sa_flags & SA_SIGINFO) && previous->sa_sigaction) {
      previous->sa_sigaction(signal, info, context);
    } else if (previous->sa_handler != SIG_DFL && previous->sa_handler != SIG_IGN) {
      previous->sa_handler(signal);
    }
  }
  /* The default action, now: a handler that returned (the backtracer, once
     its report is written) expects the fault to come again, which a signal
     sent by kill(2) never does. SA_NODEFER lets it through at once. */
  struct sigaction fallback;
  memset(&fallback, 0, sizeof fallback);
  fallback.sa_handler = SIG_DFL;
  sigemptyset(&fallback.sa_mask);
  sigaction(signal, &fallback, NULL);
  raise(signal);
}

/* Installs fatal_handler once, in front of whatever handled the fatal
   signals before (Swift's backtracer). */
static void install_fatal_handler(void) {
  if (fatal_installed) return;
  atexit(vivarium_terminal_guard_restore);
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_sigaction = fatal_handler;
  action.sa_flags = SA_SIGINFO | SA_NODEFER;
  sigemptyset(&action.sa_mask);
  for (size_t i = 0; i < FATAL_COUNT; i++) sigaction(fatal_signals[i], &action, &previous_fatal[i]);
  fatal_installed = 1;
}

int vivarium_terminal_guard_set(int fd, const struct termios *saved, const char *restore, size_t length) {
  if (length > sizeof guard_restore) return -1;
  guard_active = 0;
  guard_fd = fd;
  guard_saved = *saved;
  memcpy(guard_restore, restore, length);
  guard_length = length;
  install_fatal_handler();
  guard_active = 1;
  return 0;
}

void vivarium_crash_log_set(int fd) {
  crash_log_fd = fd;
  install_fatal_handler();
}

void vivarium_terminal_guard_clear(void) { guard_active = 0; }

static int signal_write_fd = -1;

static void pipe_handler(int signal) {
  int saved = errno;
  unsigned char byte = (unsigned char)signal;
  ssize_t ignored = write(signal_write_fd, &byte, 1);
  (void)ignored;
  errno = saved;
}

static void install_pipe_handler(int signal) {
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = pipe_handler;
  action.sa_flags = SA_RESTART;
  sigemptyset(&action.sa_mask);
  sigaction(signal, &action, NULL);
}

int vivarium_signal_pipe(const int *signals, int count) {
  if (signal_write_fd >= 0) return -1;
  int fds[2];
  if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0) return -1;
  /* The read end blocks (a reader thread waits on it); the write end never
     does (a full pipe drops a signal rather than stalling the handler). */
  fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) & ~O_NONBLOCK);
  signal_write_fd = fds[1];
  for (int i = 0; i < count; i++) install_pipe_handler(signals[i]);
  return fds[0];
}

static volatile sig_atomic_t continued = 0;
static struct sigaction previous_continue;

static void continue_handler(int signal) {
  continued = 1;
  if (!(previous_continue.sa_flags & SA_SIGINFO) && previous_continue.sa_handler != SIG_DFL &&
      previous_continue.sa_handler != SIG_IGN) {
    previous_continue.sa_handler(signal);
  }
}

void vivarium_suspend_self(void) {
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = continue_handler;
  sigemptyset(&action.sa_mask);
  sigaction(SIGCONT, &action, &previous_continue);
  continued = 0;
  /* SIGSTOP cannot be caught or blocked; but the stop may reach this thread
     after kill returns (another thread takes the signal), so wait for the
     SIGCONT that ends it. */
  kill(getpid(), SIGSTOP);
  while (!continued) {
    struct timespec pause = {0, 1000000};
    nanosleep(&pause, NULL);
  }
  sigaction(SIGCONT, &previous_continue, NULL);
}

int vivarium_openpty(int *controller, int *device, unsigned short columns, unsigned short rows) {
  struct winsize size = {.ws_row = rows, .ws_col = columns};
  return openpty(controller, device, NULL, NULL, &size);
}

int vivarium_spawn_set_session(posix_spawnattr_t *attributes) {
  short flags = 0;
  posix_spawnattr_getflags(attributes, &flags);
  return posix_spawnattr_setflags(attributes, flags | POSIX_SPAWN_SETSID);
}

void vivarium_closefrom(int from) { closefrom(from); }

int vivarium_send_fds(int socket, const void *data, size_t length, const int *fds, int count, int wait) {
  if (count < 0 || count > VIVARIUM_MAX_FDS) { errno = EINVAL; return -1; }
  char control[CMSG_SPACE(sizeof(int) * VIVARIUM_MAX_FDS)];
  memset(control, 0, sizeof control);
  struct iovec vector = {.iov_base = (void *)data, .iov_len = length};
  struct msghdr message = {.msg_iov = &vector, .msg_iovlen = 1};
  if (count > 0) {
    message.msg_control = control;
    message.msg_controllen = CMSG_SPACE(sizeof(int) * count);
    struct cmsghdr *header = CMSG_FIRSTHDR(&message);
    header->cmsg_level = SOL_SOCKET;
    header->cmsg_type = SCM_RIGHTS;
    header->cmsg_len = CMSG_LEN(sizeof(int) * count);
    memcpy(CMSG_DATA(header), fds, sizeof(int) * count);
  }
  ssize_t sent;
  int flags = MSG_NOSIGNAL | (wait ? 0 : MSG_DONTWAIT);
  do { sent = sendmsg(socket, &message, flags); } while (sent < 0 && errno == EINTR);
  return sent == (ssize_t)length ? 0 : -1;
}

long vivarium_receive_fds(int socket, void *data, size_t length, int *fds, int *count) {
  char control[CMSG_SPACE(sizeof(int) * VIVARIUM_MAX_FDS)];
  struct iovec vector = {.iov_base = data, .iov_len = length};
  struct msghdr message = {.msg_iov = &vector, .msg_iovlen = 1, .msg_control = control, .msg_controllen = sizeof control};
  ssize_t received;
  do { received = recvmsg(socket, &message, MSG_CMSG_CLOEXEC); } while (received < 0 && errno == EINTR);
  int found = 0;
  for (struct cmsghdr *header = CMSG_FIRSTHDR(&message); received >= 0 && header; header = CMSG_NXTHDR(&message, header)) {
    if (header->cmsg_level != SOL_SOCKET || header->cmsg_type != SCM_RIGHTS) continue;
    int n = (int)((header->cmsg_len - CMSG_LEN(0)) / sizeof(int));
    for (int i = 0; i < n; i++) {
      int fd;
      memcpy(&fd, CMSG_DATA(header) + sizeof(int) * i, sizeof fd);
      if (found < VIVARIUM_MAX_FDS) fds[found++] = fd; else close(fd);
    }
  }
  *count = found;
  return received;
}

int vivarium_memfd(const char *name) { return memfd_create(name, MFD_CLOEXEC); }

/* libdispatch's entry points for run loops (swift-corelibs-foundation's
   CFRunLoop calls them): on Linux the handle is an eventfd. */
extern int _dispatch_get_main_queue_handle_4CF(void);
extern void _dispatch_main_queue_callback_4CF(void *message);

int vivarium_main_queue_descriptor(void) { return _dispatch_get_main_queue_handle_4CF(); }

void vivarium_drain_main_queue(int descriptor) {
  uint64_t count;
  /* Nonblocking or not, it is readable: the caller saw it so. */
  (void)read(descriptor, &count, sizeof count);
  _dispatch_main_queue_callback_4CF(NULL);
}
