/*
 * CVivariumSystem: the few GNU libc calls the host needs that Swift's Glibc
 * module does not show (they are declared only under _GNU_SOURCE).
 */
#ifndef CVIVARIUM_SYSTEM_H
#define CVIVARIUM_SYSTEM_H

#include <spawn.h>

/* pipe2(fds, O_CLOEXEC): a pipe no other thread's child can inherit. */
int vivarium_pipe_cloexec(int fds[2]);

/* posix_spawn_file_actions_addclosefrom_np: the child closes every
   descriptor from `from` up. */
int vivarium_spawn_add_closefrom(posix_spawn_file_actions_t *actions, int from);

/* prctl(PR_SET_PDEATHSIG, SIGKILL): this process is killed when the thread
   that started it ends. Returns 0, or -1 when the parent is no longer
   `parent` (it ended before the call, and this process was reparented). */
int vivarium_die_with_parent(pid_t parent);

#endif
