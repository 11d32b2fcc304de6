/*
 * A plugin process confining its files, TCP, signals and abstract sockets
 * with Landlock (issue 30), after confine.c's filter. See CVivariumSystem.h
 * for the contract.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "CVivariumSystem.h"

/* Landlock, defined here: the system headers may be older than the kernel
   (Linux 6.1's know ABI 2), and these values are the kernel's ABI. */
#define LL_CREATE_RULESET_VERSION (1U << 0)
#define LL_RULE_PATH_BENEATH 1
#define LL_FS_EXECUTE (1ULL << 0)
#define LL_FS_WRITE_FILE (1ULL << 1)
#define LL_FS_READ_FILE (1ULL << 2)
#define LL_FS_READ_DIR (1ULL << 3)
#define LL_FS_REMOVE_DIR (1ULL << 4)
#define LL_FS_REMOVE_FILE (1ULL << 5)
#define LL_FS_MAKE_DIR (1ULL << 7)
#define LL_FS_MAKE_SYM (1ULL << 12)
#define LL_FS_REFER (1ULL << 13)    /* ABI 2 */
#define LL_FS_TRUNCATE (1ULL << 14) /* ABI 3 */
#define LL_FS_IOCTL_DEV (1ULL << 15) /* ABI 5 */
#define LL_NET_BIND_TCP (1ULL << 0) /* ABI 4 */
#define LL_NET_CONNECT_TCP (1ULL << 1)
#define LL_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0) /* ABI 6 */
#define LL_SCOPE_SIGNAL (1ULL << 1)
/* The rights a regular file (not a directory) may be given. */
#define LL_FILE_RIGHTS (LL_FS_EXECUTE | LL_FS_WRITE_FILE | LL_FS_READ_FILE | LL_FS_TRUNCATE | LL_FS_IOCTL_DEV)

struct ll_ruleset_attr {
  uint64_t handled_access_fs;
  uint64_t handled_access_net;
  uint64_t scoped;
};

struct ll_path_beneath_attr {
  uint64_t allowed_access;
  int32_t parent_fd;
} __attribute__((packed));

int vivarium_landlock_abi(void) {
  long abi = syscall(__NR_landlock_create_ruleset, NULL, 0, LL_CREATE_RULESET_VERSION);
  return abi < 0 ? 0 : (int)abi;
}

static uint64_t rights_of(int kind) {
  switch (kind) {
  case VIVARIUM_LANDLOCK_READ: return LL_FS_READ_FILE | LL_FS_READ_DIR | LL_FS_EXECUTE;
  case VIVARIUM_LANDLOCK_TREE:
    return LL_FS_READ_FILE | LL_FS_READ_DIR | LL_FS_REMOVE_DIR | LL_FS_REMOVE_FILE | LL_FS_MAKE_DIR | LL_FS_MAKE_SYM;
  case VIVARIUM_LANDLOCK_DEVICE: return LL_FS_READ_FILE | LL_FS_WRITE_FILE;
  case VIVARIUM_LANDLOCK_WRITE: return ~0ULL; /* whatever the ruleset handles */
  default: return 0;
  }
}

int vivarium_landlock(const int *fds, const int *kinds, int count) {
  int abi = vivarium_landlock_abi();
  if (abi <= 0) return 0;
  struct ll_ruleset_attr attr = {0, 0, 0};
  attr.handled_access_fs = (LL_FS_MAKE_SYM << 1) - 1; /* ABI 1: execute through make_sym */
  if (abi >= 2) attr.handled_access_fs |= LL_FS_REFER;
  if (abi >= 3) attr.handled_access_fs |= LL_FS_TRUNCATE;
  if (abi >= 5) attr.handled_access_fs |= LL_FS_IOCTL_DEV;
  /* No rule for the network: with the rights handled, no TCP bind or connect. */
  if (abi >= 4) attr.handled_access_net = LL_NET_BIND_TCP | LL_NET_CONNECT_TCP;
  if (abi >= 6) attr.scoped = LL_SCOPE_ABSTRACT_UNIX_SOCKET | LL_SCOPE_SIGNAL;
  int ruleset = (int)syscall(__NR_landlock_create_ruleset, &attr, sizeof attr, 0);
  if (ruleset < 0) return -1;
  for (int i = 0; i < count; i++) {
    struct stat info;
    if (fds[i] < 0 || fstat(fds[i], &info) != 0) continue;
    uint64_t allowed = rights_of(kinds[i]) & attr.handled_access_fs;
    if (!S_ISDIR(info.st_mode)) allowed &= LL_FILE_RIGHTS;
    struct ll_path_beneath_attr rule = {.allowed_access = allowed, .parent_fd = fds[i]};
    if (allowed != 0 && syscall(__NR_landlock_add_rule, ruleset, LL_RULE_PATH_BENEATH, &rule, 0) != 0) {
      int error = errno;
      close(ruleset);
      errno = error;
      return -1;
    }
  }
  long restricted = syscall(__NR_landlock_restrict_self, ruleset, 0);
  int error = errno;
  close(ruleset);
  errno = error;
  return restricted == 0 ? abi : -1;
}
