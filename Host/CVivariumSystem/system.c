#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
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
