/*
 * CVivariumSystem: the few GNU libc calls the host needs that Swift's Glibc
 * module does not show (they are declared only under _GNU_SOURCE).
 */
#ifndef CVIVARIUM_SYSTEM_H
#define CVIVARIUM_SYSTEM_H

#include <spawn.h>
#include <stddef.h>
#include <termios.h>

/* pipe2(fds, O_CLOEXEC): a pipe no other thread's child can inherit. */
int vivarium_pipe_cloexec(int fds[2]);

/* posix_spawn_file_actions_addclosefrom_np: the child closes every
   descriptor from `from` up. */
int vivarium_spawn_add_closefrom(posix_spawn_file_actions_t *actions, int from);

/* prctl(PR_SET_PDEATHSIG, SIGKILL): this process is killed when the thread
   that started it ends. Returns 0, or -1 when the parent is no longer
   `parent` (it ended before the call, and this process was reparented). */
int vivarium_die_with_parent(pid_t parent);

/* The terminal guard: remembers how to put the terminal back (`saved`
   settings for `fd`, and the `restore` bytes that leave the alternate screen,
   show the cursor and stop mouse reporting) and does it when the process dies
   of a fatal signal (SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGFPE, SIGABRT: a
   module's trap), before the handler that was there runs (Swift's
   backtracer) or the signal's default action, and at exit(). At most 256 restore bytes.
   Returns 0, or -1 if the bytes are too many. */
int vivarium_terminal_guard_set(int fd, const struct termios *saved, const char *restore, size_t length);

/* Puts the terminal back now (async-signal-safe), if the guard is set; the
   guard stays set. */
void vivarium_terminal_guard_restore(void);

/* The crash log: when the process dies of a fatal signal (those of the
   terminal guard), one line saying so, with the time and the signal, is
   appended to `fd` (opened with O_APPEND) after the terminal is put back
   and before the backtracer or the default action runs. -1 forgets it. */
void vivarium_crash_log_set(int fd);

/* Forgets the terminal: a fatal signal no longer touches it. */
void vivarium_terminal_guard_clear(void);

/* Delivers `signals` (count of them) to a pipe instead of their default
   action: each arrival writes its number as one byte to the pipe, whose
   read end is returned (close-on-exec), or -1. Only one such pipe per process. */
int vivarium_signal_pipe(const int *signals, int count);

/* Stops this process as a terminal stop would and returns once it is
   continued (SIGCONT, the shell's `fg`). */
void vivarium_suspend_self(void);

/* openpty(3) with the given size: a pseudo-terminal pair. Returns 0, or -1. */
int vivarium_openpty(int *controller, int *device, unsigned short columns, unsigned short rows);

/* posix_spawnattr_setflags with POSIX_SPAWN_SETSID added: the child starts a
   session of its own (as a program started in a terminal window does). */
int vivarium_spawn_set_session(posix_spawnattr_t *attributes);

/* closefrom(3): closes every descriptor from `from` up. */
void vivarium_closefrom(int from);
/* The most descriptors one message carries. */
#define VIVARIUM_MAX_FDS 4
/* Sends `length` bytes of `data` on a Unix socket with `count` descriptors
   (SCM_RIGHTS); unless `wait`, fails with EAGAIN instead of waiting for
   room. Returns 0, or -1 with errno. */
int vivarium_send_fds(int socket, const void *data, size_t length, const int *fds, int count, int wait);
/* Receives one message of at most `length` bytes, and up to VIVARIUM_MAX_FDS
   descriptors (close-on-exec) into `fds`, their number in `count`. Returns
   the bytes received (0 at the end), or -1 with errno. */
long vivarium_receive_fds(int socket, void *data, size_t length, int *fds, int *count);
/* An anonymous file in memory (memfd_create, close-on-exec) named `name`
   for /proc; a new inode each time. Returns its descriptor, or -1 with errno. */
int vivarium_memfd(const char *name);

/* The main dispatch queue's wake-up descriptor (libdispatch's eventfd for
   run loops, as CoreFoundation's run loop uses it): readable when the main
   queue has jobs. Asking for it binds the main queue to a thread that drains
   it with vivarium_drain_main_queue instead of dispatch_main. */
int vivarium_main_queue_descriptor(void);
/* Clears the wake-up `descriptor` and runs the main queue's jobs, on the main thread. */
void vivarium_drain_main_queue(int descriptor);

/* What vivarium_confine applied, as bits of its result. */
#define VIVARIUM_CONFINED_NO_NEW_PRIVS 1
#define VIVARIUM_CONFINED_NOT_DUMPABLE 2
#define VIVARIUM_CONFINED_NO_CAPABILITIES 4
#define VIVARIUM_CONFINED_LIMITS 8
#define VIVARIUM_CONFINED_SECCOMP 16
/* Confines this process for good, before it loads a plugin (issue 30):
   no new privileges; not dumpable (no ptrace, no /proc/PID/mem by its
   siblings); every capability dropped; at most `open_files` descriptors,
   `cpu_seconds` of CPU time (then SIGKILL) and no core files; and a
   seccomp-bpf filter that refuses with EPERM running
   programs, fork and clone without CLONE_THREAD (clone3 with ENOSYS, so
   the C library falls back to clone), ptrace and other processes' memory,
   mounts and namespaces, io_uring, keyrings, BPF, perf events, kernel
   modules, sockets of its own, raising its limits, making itself dumpable,
   changing its parent-death signal, its name or where its command line is
   (PR_SET_NAME, PR_SET_MM), System V IPC, and signals to any process but
   itself. With `tasks` above 0, at most that many processes and threads
   of its user (RLIMIT_NPROC): only for a process in a user namespace of
   its own, where the kernel counts them per namespace. With
   `report_refusals`, each refused call (and each file call Landlock
   refuses) is also recorded for vivarium_take_refusals, through a SIGSYS
   handler, as Chromium's sandbox does; for `vivarium check`, which names
   what a plugin tried. Returns the bits of what it applied, or -1 (with
   errno) when no new privileges or the filter could not be set: the
   process must not go on then. */
int vivarium_confine(int open_files, int cpu_seconds, int tasks, int report_refusals);

/* One call the sandbox refused: its number, the errno it got, its first
   three arguments and, for a call naming a file, the path. */
struct vivarium_refusal {
  int number;
  int error;
  long arguments[3];
  char path[232];
};
#define VIVARIUM_REFUSAL_SLOTS 64
/* Copies up to `capacity` refusals recorded since the last call into
   `into`, and forgets them; returns how many were recorded (more than
   VIVARIUM_REFUSAL_SLOTS were, when it is larger: the rest were dropped). */
int vivarium_take_refusals(struct vivarium_refusal *into, int capacity);

/* Moves this process into a user namespace of its own (the same user and
   group mapped inside) and an empty network namespace: no interface but a
   loopback that is down, so no address anywhere can be reached even if a
   socket could be made. Must run while the process has one thread, before
   vivarium_confine (whose filter refuses unshare). 0, or -1 with errno
   (EPERM, ENOSPC or EINVAL where user namespaces are not offered). */
int vivarium_isolate_network(void);

/* Moves this process into a user namespace of its own (the same user and
   group mapped inside), and nothing else: where RLIMIT_NPROC counts only
   this process's threads. Must run while the process has one thread.
   0, or -1 with errno. */
int vivarium_enter_user_namespace(void);

/* The zygote's namespaces: a user namespace of its own with an empty
   network namespace, a mount namespace and a PID namespace. This process
   forks the namespace's process 1, which returns 1 and is the zygote from
   then on: it dies with this process (PR_SET_PDEATHSIG), and the kernel
   kills every process in the namespace when it dies; it has a /proc of
   the namespace's own, mounted hidepid=ptraceable. This process closes
   `keep` (the zygote's socket), waits for it and exits as it did; it never
   returns. Where a PID namespace cannot be made, only the user and network
   namespaces are (vivarium_isolate_network), and this returns 0 in this
   process; -1 when neither can. Where a user namespace is made and cannot
   be mapped, the process exits with status 73: it cannot leave it. Must
   run while the process has one thread. */
int vivarium_isolate_zygote(int keep);

/* Names this process `name` (its comm, at most 15 bytes, what `ps -o comm`
   and top show) and, when `count` > 0, gives it the command line
   `arguments` (what /proc/PID/cmdline and `ps -f` show), in pages of
   their own, read-only and, where the kernel has mseal, sealed
   (PR_SET_MM_MAP). Before vivarium_confine, whose filter refuses both.
   0, or -1 with errno. */
int vivarium_name_process(const char *name, const char *const *arguments, int count);

/* pidfd_open(pid, 0): a descriptor for process `pid`, or -1 with errno. */
int vivarium_pidfd_open(pid_t pid);
/* The pid, in this process's PID namespace, of the process pidfd `fd`
   refers to (its fdinfo's Pid), or -1. */
pid_t vivarium_pidfd_pid(int fd);

/* Whether this kernel filters system calls with seccomp-bpf (1) or not (0). */
int vivarium_seccomp_available(void);
/* The Landlock ABI this kernel offers; 0 when it offers none. */
int vivarium_landlock_abi(void);
/* What a Landlock rule allows beneath a descriptor (a file or a directory;
   a file gets only the file rights of its kind). */
#define VIVARIUM_LANDLOCK_READ 1   /* read and map: read, list, execute */
#define VIVARIUM_LANDLOCK_TREE 2   /* a folder of links: read, list, make folders and links, remove */
#define VIVARIUM_LANDLOCK_DEVICE 3 /* read and write an existing file, such as /dev/null */
#define VIVARIUM_LANDLOCK_WRITE 4  /* anything: a folder the person opened to every plugin */
/* Confines this process's files for good with Landlock: only what `count`
   rules allow (`fds[i]`, opened O_PATH, with `kinds[i]`), no file written,
   made or removed elsewhere; no TCP bind or connect (ABI 4); abstract Unix
   sockets and signals scoped to this process (ABI 6). Needs no new
   privileges set first. Returns the ABI used, 0 when the kernel offers no
   Landlock (nothing done), or -1 with errno. */
int vivarium_landlock(const int *fds, const int *kinds, int count);
#endif
