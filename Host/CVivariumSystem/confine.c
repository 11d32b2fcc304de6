/*
 * A plugin process confining itself before it loads a plugin (issue 30):
 * no new privileges, not dumpable, no capabilities, limits, and a
 * seccomp-bpf filter that refuses, with an errno the plugin can report, what
 * no plugin needs (or, in a check process, traps it and records it); and an
 * empty network namespace. Landlock is in landlock.c. See CVivariumSystem.h
 * for the contract.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/prctl.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#include "CVivariumSystem.h"

/* mseal(2), Linux 6.10, which older headers do not name. */
#ifdef SYS_mseal
#define VIVARIUM_SYS_MSEAL SYS_mseal
#else
#define VIVARIUM_SYS_MSEAL 462
#endif

/* Linux 6.1's headers may lack these. */
#ifndef PR_CAP_AMBIENT
#define PR_CAP_AMBIENT 47
#endif
#ifndef PR_CAP_AMBIENT_CLEAR_ALL
#define PR_CAP_AMBIENT_CLEAR_ALL 4
#endif

/* Syscalls a plugin never needs, refused with EPERM: running programs and
   making processes, reading or steering other processes, mounts and
   namespaces, io_uring, keyrings, BPF, perf events, kernel modules and
   the machine's state, sockets of its own, raising its own limits,
   System V IPC (a channel between plugins that no file rule sees), and
   memory in a file of its own (memfd_create), which no memory limit
   counts. */
static const int refused_syscalls[] = {
  __NR_execve, __NR_execveat, __NR_fork, __NR_vfork,
  __NR_ptrace, __NR_process_vm_readv, __NR_process_vm_writev, __NR_kcmp, __NR_pidfd_getfd,
  __NR_mount, __NR_umount2, __NR_pivot_root, __NR_chroot, __NR_unshare, __NR_setns,
  __NR_fsopen, __NR_fsmount, __NR_fsconfig, __NR_move_mount, __NR_open_tree, __NR_mount_setattr,
  __NR_io_uring_setup, __NR_io_uring_enter, __NR_io_uring_register,
  __NR_keyctl, __NR_add_key, __NR_request_key,
  __NR_bpf, __NR_perf_event_open, __NR_userfaultfd,
  __NR_init_module, __NR_finit_module, __NR_delete_module, __NR_kexec_load, __NR_kexec_file_load,
  __NR_reboot, __NR_swapon, __NR_swapoff, __NR_acct, __NR_quotactl,
  __NR_open_by_handle_at, __NR_name_to_handle_at, __NR_lookup_dcookie,
  __NR_socket, __NR_socketpair, __NR_connect, __NR_bind, __NR_listen, __NR_accept, __NR_accept4,
  __NR_setrlimit,
  __NR_shmget, __NR_shmat, __NR_shmctl, __NR_shmdt, __NR_msgget, __NR_msgsnd, __NR_msgrcv, __NR_msgctl,
  __NR_semget, __NR_semop, __NR_semctl, __NR_semtimedop,
  __NR_memfd_create, __NR_memfd_secret,
};
#define REFUSED_COUNT (sizeof refused_syscalls / sizeof refused_syscalls[0])

/* Where a seccomp_data field is, for BPF_ABS loads (little-endian: the low
   32 bits of an argument first). */
#define SYSCALL_NR offsetof(struct seccomp_data, nr)
#define ARCH offsetof(struct seccomp_data, arch)
#define ARG_LOW(n) (offsetof(struct seccomp_data, args) + 8 * (n))
#define ARG_HIGH(n) (offsetof(struct seccomp_data, args) + 8 * (n) + 4)

#define ALLOW BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)
#define REFUSE_WITH(errno_value) BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ((errno_value) & SECCOMP_RET_DATA))
/* A refusal: EPERM, or, when refusals are reported, a trap to on_refused,
   which records the call and answers EPERM itself. */
#define REFUSE(errno_value) BPF_STMT(BPF_RET | BPF_K, reporting ? SECCOMP_RET_TRAP : SECCOMP_RET_ERRNO | ((errno_value) & SECCOMP_RET_DATA))
#define TRAP BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP)
#define IP_LOW offsetof(struct seccomp_data, instruction_pointer)
#define IP_HIGH (offsetof(struct seccomp_data, instruction_pointer) + 4)
#define LOAD(offset) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (offset))

/* The namespaces a clone may not make. */
#define NAMESPACE_FLAGS \
  (CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET)

/* A signal syscall whose first argument is a process: allowed only to
   this process (`self`), refused for any other, as for the group (0) or
   every process (-1). */
#define ONLY_TO_SELF(number, self)                                   \
  BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (number), 0, 5),               \
    LOAD(ARG_LOW(0)), BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (self), 0, 2), \
    LOAD(ARG_HIGH(0)), BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 1, 0), REFUSE(EPERM)

/* The system calls that name a file Landlock may refuse, and which of
   their arguments is the path reported; when refusals are reported, each
   is trapped unless made from trusted_syscall, which on_refused makes it
   from, so that the kernel (and Landlock) answer it as they would have. */
static const int path_syscalls[][2] = {
  {__NR_open, 0}, {__NR_openat, 1}, {__NR_creat, 0}, {__NR_mkdir, 0}, {__NR_mkdirat, 1},
  {__NR_rmdir, 0}, {__NR_unlink, 0}, {__NR_unlinkat, 1}, {__NR_rename, 0}, {__NR_renameat, 1},
  {__NR_renameat2, 1}, {__NR_link, 1}, {__NR_linkat, 3}, {__NR_symlink, 1}, {__NR_symlinkat, 2},
  {__NR_mknod, 0}, {__NR_mknodat, 1}, {__NR_truncate, 0},
};
#define PATH_SYSCALL_COUNT (sizeof path_syscalls / sizeof path_syscalls[0])

/* The address just after trusted_syscall's syscall instruction: what
   seccomp_data.instruction_pointer holds for a call made there. */
extern const char vivarium_trusted_syscall_return[];

/* Makes system call `number` from the one place the filter lets path
   calls through when refusals are reported. */
__attribute__((noinline)) static long trusted_syscall(long number, const long *a) {
  long result;
  register long r10 __asm__("r10") = a[3];
  register long r8 __asm__("r8") = a[4];
  register long r9 __asm__("r9") = a[5];
  __asm__ volatile("syscall\n"
                   ".globl vivarium_trusted_syscall_return\n"
                   "vivarium_trusted_syscall_return:\n"
                   : "=a"(result)
                   : "a"(number), "D"(a[0]), "S"(a[1]), "d"(a[2]), "r"(r10), "r"(r8), "r"(r9)
                   : "rcx", "r11", "memory");
  return result;
}

static struct vivarium_refusal refusals[VIVARIUM_REFUSAL_SLOTS];
static int refusals_taken;

/* Records a refused call, from the signal handler: async-signal-safe. */
static void record_refusal(long number, int error, const long *a, const char *path) {
  int slot = __atomic_fetch_add(&refusals_taken, 1, __ATOMIC_RELAXED);
  if (slot >= VIVARIUM_REFUSAL_SLOTS) return;
  struct vivarium_refusal *entry = &refusals[slot];
  entry->number = (int)number;
  entry->error = error;
  for (int i = 0; i < 3; i++) entry->arguments[i] = a[i];
  size_t n = 0;
  if (path != NULL) {
    for (; n + 1 < sizeof entry->path && path[n] != 0; n++) entry->path[n] = path[n];
  }
  entry->path[n] = 0;
}

/* Whether the string at `address` can be read: faccessat, never trapped,
   answers EFAULT when it cannot. */
static int readable_path(long address) {
  long probe[6] = {AT_FDCWD, address, F_OK, 0, 0, 0};
  return address != 0 && trusted_syscall(__NR_faccessat, probe) != -EFAULT;
}

/* SIGSYS from the filter: a path call is made again from trusted_syscall
   and recorded when refused; any other trapped call is refused with EPERM
   and recorded. The result goes where the call's result would have. */
static void on_refused(int signal, siginfo_t *info, void *context) {
  (void)signal;
  ucontext_t *machine = context;
  greg_t *registers = machine->uc_mcontext.gregs;
  long number = info->si_syscall;
  long a[6] = {registers[REG_RDI], registers[REG_RSI], registers[REG_RDX],
               registers[REG_R10], registers[REG_R8], registers[REG_R9]};
  long result = -EPERM;
  int path_argument = -1;
  for (size_t i = 0; i < PATH_SYSCALL_COUNT; i++) {
    if (path_syscalls[i][0] == number) path_argument = path_syscalls[i][1];
  }
  if (path_argument >= 0) {
    result = trusted_syscall(number, a);
    if (result == -EACCES || result == -EPERM || result == -EROFS || result == -EXDEV)
      record_refusal(number, (int)-result, a, (const char *)a[path_argument]);
  } else {
    const char *path = NULL;
    if ((number == __NR_execve || number == __NR_chroot || number == __NR_mount) && readable_path(a[0]))
      path = (const char *)a[0];
    record_refusal(number, EPERM, a, path);
  }
  registers[REG_RAX] = result;
}

int vivarium_take_refusals(struct vivarium_refusal *into, int capacity) {
  int taken = __atomic_exchange_n(&refusals_taken, 0, __ATOMIC_RELAXED);
  int count = taken < VIVARIUM_REFUSAL_SLOTS ? taken : VIVARIUM_REFUSAL_SLOTS;
  if (count > capacity) count = capacity;
  for (int i = 0; i < count; i++) into[i] = refusals[i];
  return taken;
}

static int install_filter(pid_t self, int reporting) {
  struct sock_filter program[2 * REFUSED_COUNT + 8 * PATH_SYSCALL_COUNT + 128];
  size_t n = 0;
  /* Only x86-64 system calls: x32 ones (numbers with bit 30) and other
     architectures are refused. */
  program[n++] = (struct sock_filter)LOAD(ARCH);
  program[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0);
  program[n++] = (struct sock_filter)REFUSE_WITH(EPERM);
  program[n++] = (struct sock_filter)LOAD(SYSCALL_NR);
  program[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 0, 1);
  program[n++] = (struct sock_filter)REFUSE_WITH(EPERM);
  for (size_t i = 0; i < REFUSED_COUNT; i++) {
    program[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)refused_syscalls[i], 0, 1);
    program[n++] = (struct sock_filter)REFUSE(EPERM);
  }
  /* clone3 passes its flags in memory, out of the filter's reach: ENOSYS,
     so that the C library falls back to clone, whose flags it can read. */
  program[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone3, 0, 1);
  program[n++] = (struct sock_filter)REFUSE_WITH(ENOSYS);
  /* clone: threads only (CLONE_THREAD), in no new namespace. Never
     trapped: posix_spawn makes its clone with every signal blocked, and a
     trap whose SIGSYS is blocked kills the process. */
  struct sock_filter clone_rule[] = {
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone, 0, 5),
    LOAD(ARG_LOW(0)),
    BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, NAMESPACE_FLAGS, 2, 0),
    BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_THREAD, 0, 1),
    ALLOW,
    REFUSE_WITH(EPERM),
  };
  /* prlimit64 may read limits (no new limit), never set them. */
  struct sock_filter prlimit_rule[] = {
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_prlimit64, 0, 6),
    LOAD(ARG_LOW(2)),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 3),
    LOAD(ARG_HIGH(2)),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 1),
    ALLOW,
    REFUSE(EPERM),
  };
  /* prctl may not make the process dumpable again, name a tracer, clear
     or change the signal it gets when its parent dies, or change what
     /proc says it is: its name (PR_SET_NAME, refused without a trap: the
     C library names threads with it, which is no escape) and where its
     command line is (PR_SET_MM, whose PR_SET_MM_MAP needs no privilege). */
  struct sock_filter prctl_rule[] = {
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_prctl, 0, 8),
    LOAD(ARG_LOW(0)),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PR_SET_NAME, 5, 0),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PR_SET_DUMPABLE, 3, 0),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PR_SET_PTRACER, 2, 0),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PR_SET_PDEATHSIG, 1, 0),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PR_SET_MM, 0, 2),
    REFUSE(EPERM),
    REFUSE_WITH(EPERM),
  };
  /* mmap may not make shared anonymous memory (MAP_SHARED or
     MAP_SHARED_VALIDATE with MAP_ANONYMOUS): RLIMIT_DATA, the plugin's
     memory limit, counts only private writable memory, so a plugin's
     memory is private, within its limit. */
  struct sock_filter mmap_rule[] = {
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_mmap, 0, 4),
    LOAD(ARG_LOW(3)),
    BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, MAP_ANONYMOUS, 0, 2),
    BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, MAP_SHARED, 0, 1),
    REFUSE(EPERM),
  };
  /* Signals only to itself. */
  struct sock_filter signal_rules[] = {
    ONLY_TO_SELF(__NR_kill, (uint32_t)self),
    ONLY_TO_SELF(__NR_tgkill, (uint32_t)self),
    ONLY_TO_SELF(__NR_rt_sigqueueinfo, (uint32_t)self),
    ONLY_TO_SELF(__NR_rt_tgsigqueueinfo, (uint32_t)self),
    ONLY_TO_SELF(__NR_pidfd_open, (uint32_t)self),
  };
  /* Each rule ends by reloading the number the next one compares. */
  const struct sock_filter reload = LOAD(SYSCALL_NR);
  for (size_t i = 0; i < sizeof clone_rule / sizeof clone_rule[0]; i++) program[n++] = clone_rule[i];
  program[n++] = reload;
  for (size_t i = 0; i < sizeof prlimit_rule / sizeof prlimit_rule[0]; i++) program[n++] = prlimit_rule[i];
  program[n++] = reload;
  for (size_t i = 0; i < sizeof prctl_rule / sizeof prctl_rule[0]; i++) program[n++] = prctl_rule[i];
  program[n++] = reload;
  for (size_t i = 0; i < sizeof mmap_rule / sizeof mmap_rule[0]; i++) program[n++] = mmap_rule[i];
  program[n++] = reload;
  for (size_t rule = 0; rule < sizeof signal_rules / sizeof signal_rules[0] / 6; rule++) {
    for (size_t i = 0; i < 6; i++) program[n++] = signal_rules[rule * 6 + i];
    program[n++] = reload;
  }
  if (reporting) {
    /* Path calls: through only from trusted_syscall, else trapped. */
    uint64_t site = (uint64_t)(uintptr_t)vivarium_trusted_syscall_return;
    for (size_t i = 0; i < PATH_SYSCALL_COUNT; i++) {
      struct sock_filter path_rule[] = {
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)path_syscalls[i][0], 0, 6),
        LOAD(IP_LOW),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)site, 0, 3),
        LOAD(IP_HIGH),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)(site >> 32), 0, 1),
        ALLOW,
        TRAP,
      };
      for (size_t j = 0; j < sizeof path_rule / sizeof path_rule[0]; j++) program[n++] = path_rule[j];
      program[n++] = reload;
    }
  }
  program[n++] = (struct sock_filter)ALLOW;
  if (n > sizeof program / sizeof program[0]) return -1;
  struct sock_fprog fprog = {.len = (unsigned short)n, .filter = program};
  return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog, 0, 0);
}

/* Drops every capability: from the bounding set (while it may), the
   ambient set, then the effective, permitted and inheritable ones. */
static int drop_capabilities(void) {
  for (int cap = 0; cap <= 63; cap++) {
    if (prctl(PR_CAPBSET_READ, cap, 0, 0, 0) == 1) prctl(PR_CAPBSET_DROP, cap, 0, 0, 0);
  }
  prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
  struct __user_cap_header_struct header = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
  struct __user_cap_data_struct data[2] = {{0, 0, 0}, {0, 0, 0}};
  return (int)syscall(SYS_capset, &header, data);
}

static int limit(int resource, rlim_t value) {
  struct rlimit current;
  if (getrlimit(resource, &current) != 0) return -1;
  /* Never above what the process had. */
  if (current.rlim_max != RLIM_INFINITY && value > current.rlim_max) value = current.rlim_max;
  struct rlimit wanted = {.rlim_cur = value, .rlim_max = value};
  return setrlimit(resource, &wanted);
}

int vivarium_seccomp_available(void) {
  /* PR_GET_SECCOMP answers EINVAL on a kernel built without seccomp; the
     filter mode itself is probed without installing anything. */
  if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) < 0) return 0;
  return (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, NULL, 0, 0) < 0 && errno == EFAULT) ? 1 : 0;
}

int vivarium_confine(int open_files, int cpu_seconds, int tasks, int report_refusals) {
  int applied = 0;
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -1;
  applied |= VIVARIUM_CONFINED_NO_NEW_PRIVS;
  if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == 0) applied |= VIVARIUM_CONFINED_NOT_DUMPABLE;
  if (drop_capabilities() == 0) applied |= VIVARIUM_CONFINED_NO_CAPABILITIES;
  if (limit(RLIMIT_NOFILE, (rlim_t)open_files) == 0 && limit(RLIMIT_CORE, 0) == 0 &&
      limit(RLIMIT_CPU, (rlim_t)cpu_seconds) == 0 && (tasks <= 0 || limit(RLIMIT_NPROC, (rlim_t)tasks) == 0))
    applied |= VIVARIUM_CONFINED_LIMITS;
  if (report_refusals) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = on_refused;
    action.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&action.sa_mask);
    if (sigaction(SIGSYS, &action, NULL) != 0) return -1;
  }
  if (install_filter(getpid(), report_refusals) != 0) return -1;
  applied |= VIVARIUM_CONFINED_SECCOMP;
  return applied;
}

/* Writes `text` to `path` whole; 0, or -1 with errno. */
static int write_whole(const char *path, const char *text) {
  int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  size_t length = strlen(text);
  ssize_t written = write(fd, text, length);
  int error = errno;
  close(fd);
  if (written == (ssize_t)length) return 0;
  errno = written < 0 ? error : EIO;
  return -1;
}

/* unshare_mapped's answer when the namespaces were made but could not be
   mapped (a kernel or an AppArmor profile that lets a user namespace be
   made and not mapped): the process cannot go back, and is no use. */
#define UNSHARED_UNMAPPED (-2)

/* unshare(flags), CLONE_NEWUSER among them, then the same user and group
   mapped inside as outside, so that the process's files and its own
   account look as they did; setgroups must be denied before an
   unprivileged process may map its group. 0, or -1 with errno. */
static int unshare_mapped(int flags) {
  uid_t uid = geteuid();
  gid_t gid = getegid();
  if (unshare(flags) != 0) return -1;
  char line[64];
  if (write_whole("/proc/self/setgroups", "deny") != 0) return UNSHARED_UNMAPPED;
  snprintf(line, sizeof line, "%u %u 1", (unsigned)uid, (unsigned)uid);
  if (write_whole("/proc/self/uid_map", line) != 0) return UNSHARED_UNMAPPED;
  snprintf(line, sizeof line, "%u %u 1", (unsigned)gid, (unsigned)gid);
  if (write_whole("/proc/self/gid_map", line) != 0) return UNSHARED_UNMAPPED;
  return 0;
}

int vivarium_isolate_network(void) { return unshare_mapped(CLONE_NEWUSER | CLONE_NEWNET) == 0 ? 0 : -1; }

int vivarium_enter_user_namespace(void) { return unshare_mapped(CLONE_NEWUSER) == 0 ? 0 : -1; }

int vivarium_isolate_zygote(int keep) {
  int mapped = unshare_mapped(CLONE_NEWUSER | CLONE_NEWNET | CLONE_NEWNS);
  /* Made and not mapped: this process cannot leave them; the host starts
     each plugin process directly instead. */
  if (mapped == UNSHARED_UNMAPPED) _exit(73);
  if (mapped != 0) return vivarium_isolate_network() == 0 ? 0 : -1;
  /* The PID namespace only once the others are mapped: where it cannot be
     made, the network and the user namespaces still hold. */
  if (unshare(CLONE_NEWPID) != 0) return 0;
  /* The first child is process 1 of the new PID namespace, and every
     process it forks is in it: this process only waits for it. The pipe
     tells the child whether this process was already gone when it asked
     to die with it. */
  int alive[2];
  if (pipe2(alive, O_CLOEXEC) != 0) _exit(71);
  pid_t init = fork();
  if (init < 0) _exit(71);
  if (init > 0) {
    close(alive[0]);
    close(keep);
    int status = 0;
    while (waitpid(init, &status, 0) < 0 && errno == EINTR) {}
    _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
  }
  close(alive[1]);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  struct pollfd parent = {.fd = alive[0], .events = POLLIN};
  if (poll(&parent, 1, 0) != 0) _exit(1);
  close(alive[0]);
  /* A /proc of the namespace's own, in a mount namespace of its own: its
     processes are the only ones there, and each sees only itself
     (hidepid=ptraceable: a process it may not ptrace is not there, whatever its group). */
  if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) _exit(72);
  if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, "hidepid=ptraceable") != 0) _exit(72);
  return 1;
}

/* Reads the small file `path` (one read, as /proc files are) into `text`,
   ending it with a NUL: the bytes read, or -1. */
static ssize_t read_text(const char *path, char *text, size_t size) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  ssize_t count = read(fd, text, size - 1);
  close(fd);
  if (count < 0) return -1;
  text[count] = 0;
  return count;
}

int vivarium_name_process(const char *name, const char *const *arguments, int count) {
  if (prctl(PR_SET_NAME, name, 0, 0, 0) != 0) return -1;
  if (count <= 0) return 0;
  size_t length = 0;
  for (int i = 0; i < count; i++) length += strlen(arguments[i]) + 1;
  /* Pages of their own, never freed (/proc/PID/cmdline reads them for as
     long as the process lives), made read-only and sealed: the plugin
     cannot write its command line, nor make them writable, unmap, replace,
     move or discard them (mseal, Linux 6.10; EPERM). Where mseal fails (an
     older kernel, or a container's filter refusing it) they are only
     read-only, and the command line is moved all the same. */
  long page = sysconf(_SC_PAGESIZE);
  size_t span = (length + (size_t)page - 1) / (size_t)page * (size_t)page;
  char *area = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (area == MAP_FAILED) return -1;
  size_t at = 0;
  for (int i = 0; i < count; i++) {
    size_t size = strlen(arguments[i]) + 1;
    memcpy(area + at, arguments[i], size);
    at += size;
  }
  if (mprotect(area, span, PROT_READ) != 0) {
    munmap(area, span);
    return -1;
  }
  (void)syscall(VIVARIUM_SYS_MSEAL, area, span, 0);
  /* PR_SET_MM_MAP replaces every field at once: each as it is (from
     /proc/self/stat), but for where the arguments are. */
  char stat[2048];
  if (read_text("/proc/self/stat", stat, sizeof stat) <= 0) {
    munmap(area, span);
    return -1;
  }
  char *cursor = strrchr(stat, ')');
  if (cursor == NULL) {
    munmap(area, span);
    return -1;
  }
  unsigned long long field[53] = {0};
  cursor += 2; /* field 3, the state, starts here */
  for (int number = 3; number < 53 && *cursor; number++) {
    field[number] = strtoull(cursor, &cursor, 10);
    while (*cursor && *cursor != ' ') cursor++;
    while (*cursor == ' ') cursor++;
  }
  struct prctl_mm_map map;
  memset(&map, 0, sizeof map);
  map.start_code = field[26];
  map.end_code = field[27];
  map.start_stack = field[28];
  map.start_data = field[45];
  map.end_data = field[46];
  map.start_brk = field[47];
  map.brk = (unsigned long long)syscall(SYS_brk, 0);
  map.arg_start = (unsigned long long)(uintptr_t)area;
  map.arg_end = (unsigned long long)(uintptr_t)area + length;
  map.env_start = field[50];
  map.env_end = field[51];
  map.exe_fd = (unsigned)-1;
  return prctl(PR_SET_MM, PR_SET_MM_MAP, &map, sizeof map, 0);
}

int vivarium_pidfd_open(pid_t pid) { return (int)syscall(SYS_pidfd_open, pid, 0); }

pid_t vivarium_pidfd_pid(int fd) {
  char path[64], text[1024];
  snprintf(path, sizeof path, "/proc/self/fdinfo/%d", fd);
  if (read_text(path, text, sizeof text) <= 0) return -1;
  char *line = strstr(text, "\nPid:");
  return line == NULL ? -1 : (pid_t)strtol(line + 5, NULL, 10);
}
