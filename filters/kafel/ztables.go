// Code generated from google/kafel src/syscalls/*_syscalls.c at commit 18f207428068a50f2c35706c5d0b21f53c769016; DO NOT EDIT.
// Each line: Kafel's name, the syscall number, then each declared argument
// as name:size (bytes; a 4-byte argument is compared on its low word).

package kafel

// tableX86_64 is Kafel's amd64 list (382 syscalls).
const tableX86_64 = `accept 43 fd:4 upeer_sockaddr:8 upeer_addrlen:8
accept4 288 fd:4 upeer_sockaddr:8 upeer_addrlen:8 flags:4
access 21 filename:8 mode:4
acct 163 name:8
add_key 248 _type:8 _description:8 _payload:8 plen:8 ringid:4
adjtimex 159 txc_p:8
afs_syscall 183
alarm 37 seconds:4
arch_prctl 158 code:4 addr:8
bind 49 fd:4 umyaddr:8 addrlen:4
bpf 321 cmd:4 uattr:8 size:4
brk 12 brk:8
cachestat 451 fd:4 cstat_range:8 cstat:8 flags:4
capget 125 header:8 dataptr:8
capset 126 header:8 data:8
chdir 80 filename:8
chmod 90 filename:8 mode:2
chown 92 filename:8 user:4 group:4
chroot 161 filename:8
clock_adjtime 305 which_clock:4 utx:8
clock_getres 229 which_clock:4 tp:8
clock_gettime 228 which_clock:4 tp:8
clock_nanosleep 230 which_clock:4 flags:4 rqtp:8 rmtp:8
clock_settime 227 which_clock:4 tp:8
clone 56 clone_flags:8 newsp:8 parent_tidptr:8 child_tidptr:8 tls:8
clone3 435 uargs:8 size:8
close 3 fd:4
close_range 436 fd:4 max_fd:4 flags:4
connect 42 fd:4 uservaddr:8 addrlen:4
copy_file_range 326 fd_in:4 off_in:8 fd_out:4 off_out:8 len:8 flags:4
creat 85 pathname:8 mode:2
create_module 174 name:8 size:8
delete_module 176 name_user:8 flags:4
dup 32 fildes:4
dup2 33 oldfd:4 newfd:4
dup3 292 oldfd:4 newfd:4 flags:4
epoll_create 213 size:4
epoll_create1 291 flags:4
epoll_ctl 233 epfd:4 op:4 fd:4 event:8
epoll_ctl_old 214
epoll_pwait 281 epfd:4 events:8 maxevents:4 timeout:4 sigmask:8 sigsetsize:8
epoll_pwait2 441 epfd:4 events:8 maxevents:4 timeout:8 sigmask:8 sigsetsize:8
epoll_wait 232 epfd:4 events:8 maxevents:4 timeout:4
epoll_wait_old 215
eventfd 284 count:4
eventfd2 290 count:4 flags:4
execve 59 filename:8 argv:8 envp:8
execveat 322 fd:4 filename:8 argv:8 envp:8 flags:4
exit 60 error_code:4
exit_group 231 error_code:4
faccessat 269 dfd:4 filename:8 mode:4
faccessat2 439 dfd:4 filename:8 mode:4 flags:4
fadvise64 221 fd:4 offset:8 len:8 advice:4
fallocate 285 fd:4 mode:4 offset:8 len:8
fanotify_init 300 flags:4 event_f_flags:4
fanotify_mark 301 fanotify_fd:4 flags:4 mask:8 dfd:4 pathname:8
fchdir 81 fd:4
fchmod 91 fd:4 mode:2
fchmodat 268 dfd:4 filename:8 mode:2
fchmodat2 452 dfd:4 filename:8 mode:2 flags:4
fchown 93 fd:4 user:4 group:4
fchownat 260 dfd:4 filename:8 user:4 group:4 flag:4
fcntl 72 fd:4 cmd:4 arg:8
fdatasync 75 fd:4
fgetxattr 193 fd:4 name:8 value:8 size:8
file_getattr 468 dfd:4 pathname:8 fileattr:8 flags:4
file_setattr 469 dfd:4 pathname:8 fileattr:8 flags:4
finit_module 313 fd:4 uargs:8 flags:4
flistxattr 196 fd:4 list:8 size:8
flock 73 fd:4 cmd:4
fork 57
fremovexattr 199 fd:4 name:8
fsconfig 431 fd:4 cmd:4 key:8 value:8 aux:4
fsetxattr 190 fd:4 name:8 value:8 size:8 flags:4
fsmount 432 fs_fd:4 flags:4 attr_flags:4
fsopen 430 fs_name:8 flags:4
fspick 433 dfd:4 path:8 flags:4
fstatfs 138 fd:4 buf:8
fsync 74 fd:4
ftruncate 77 fd:4 length:8
futex 202 uaddr:8 op:4 val:4 utime:8 uaddr2:8 val3:4
futex_requeue 456 uaddr:8 nr_wake:4 nr_requeue:4 uaddr2:8 flags:4
futex_wait 455 uaddr:8 val:4 flags:4 timeout:8
futex_waitv 449 waiters:8 nr_futexes:4 flags:4 timeout:8 clockid:4
futex_wake 454 uaddr:8 nr_wake:4 flags_or_mask:4
futimesat 261 dfd:4 filename:8 utimes:8
getcpu 309 cpup:8 nodep:8 unused:8
getcwd 79 buf:8 size:8
getdents 78 fd:4 dirent:8 count:4
getdents64 217 fd:4 dirent:8 count:4
getegid 108
geteuid 107
getgid 104
getgroups 115 gidsetsize:4 grouplist:8
getitimer 36 which:4 value:8
get_kernel_syms 177 table:8
get_mempolicy 239 policy:8 nmask:8 maxnode:8 addr:8 flags:8
getpeername 52 fd:4 usockaddr:8 usockaddr_len:8
getpgid 121 pid:4
getpgrp 111
getpid 39
getpmsg 181
getppid 110
getpriority 140 which:4 who:4
getrandom 318 buf:8 count:8 flags:4
getresgid 120 rgidp:8 egidp:8 sgidp:8
getresuid 118 ruidp:8 euidp:8 suidp:8
getrlimit 97 resource:4 rlim:8
get_robust_list 274 pid:4 head_ptr:8 len_ptr:8
getrusage 98 who:4 ru:8
getsid 124 pid:4
getsockname 51 fd:4 usockaddr:8 usockaddr_len:8
getsockopt 55 fd:4 level:4 optname:4 optval:8 optlen:8
get_thread_area 211 u_info:8
gettid 186
gettimeofday 96 tv:8 tz:8
getuid 102
getxattr 191 pathname:8 name:8 value:8 size:8
getxattrat 464 dfd:4 pathname:8 name:8 value:8 size:8
init_module 175 umod:8 len:8 uargs:8
inotify_add_watch 254 fd:4 pathname:8 mask:4
inotify_init 253
inotify_init1 294 flags:4
inotify_rm_watch 255 fd:4 wd:4
io_cancel 210 ctx_id:8 iocb:8 result:8
ioctl 16 fd:4 cmd:4 arg:8
io_destroy 207 ctx:8
io_getevents 208 ctx_id:8 min_nr:8 nr:8 events:8 timeout:8
ioperm 173 from:8 num:8 turn_on:4
iopl 172 level:4
io_pgetevents 333 ctx_id:8 min_nr:8 nr:8 events:8 timeout:8 sig:8
ioprio_get 252 which:4 who:4
ioprio_set 251 which:4 who:4 ioprio:4
io_setup 206 nr_events:4 ctxp:8
io_submit 209 ctx_id:8 nr:8 iocbpp:8
io_uring_enter 426 fd:4 to_submit:4 min_complete:4 flags:4 argp:8 argsz:8
io_uring_register 427 fd:4 opcode:4 arg:8 nr_args:4
io_uring_setup 425 entries:4 params:8
kcmp 312 pid1:4 pid2:4 type:4 idx1:8 idx2:8
kexec_file_load 320 kernel_fd:4 initrd_fd:4 cmdline_len:8 cmdline_ptr:8 flags:8
kexec_load 246 entry:8 nr_segments:8 segments:8 flags:8
keyctl 250 option:4 arg2:8 arg3:8 arg4:8 arg5:8
kill 62 pid:4 sig:4
landlock_add_rule 445 ruleset_fd:4 rule_type:4 rule_attr:8 flags:4
landlock_create_ruleset 444 attr:8 size:8 flags:4
landlock_restrict_self 446 ruleset_fd:4 flags:4
lchown 94 filename:8 user:4 group:4
lgetxattr 192 pathname:8 name:8 value:8 size:8
link 86 oldname:8 newname:8
linkat 265 olddfd:4 oldname:8 newdfd:4 newname:8 flags:4
listen 50 fd:4 backlog:4
listmount 458 req:8 reqlen:8 buf:8 bufsize:8 flags:4
listxattr 194 pathname:8 list:8 size:8
listxattrat 465 dfd:4 pathname:8 list:8 size:8
llistxattr 195 pathname:8 list:8 size:8
lookup_dcookie 212 cookie64:8 buf:8 len:8
lremovexattr 198 pathname:8 name:8
lseek 8 fd:4 offset:8 whence:4
lsetxattr 189 pathname:8 name:8 value:8 size:8 flags:4
lsm_get_self_attr 459 attr:4 ctx:8 size_ptr:8 flags:4
lsm_list_modules 461 ids:8 size_ptr:8 flags:4
lsm_set_self_attr 460 attr:4 ctx:8 size:8 flags:4
madvise 28 start:8 len_in:8 behavior:4
map_shadow_stack 453 addr:8 size:8 flags:4
mbind 237 start:8 len:8 mode:8 nmask:8 maxnode:8 flags:4
membarrier 324 cmd:4 flags:4
memfd_create 319 uname:8 flags:4
memfd_secret 447 flags:4
migrate_pages 256 pid:4 maxnode:8 old_nodes:8 new_nodes:8
mincore 27 start:8 len:8 vec:8
mkdir 83 pathname:8 mode:2
mkdirat 258 dfd:4 pathname:8 mode:2
mknod 133 filename:8 mode:2 dev:4
mknodat 259 dfd:4 filename:8 mode:2 dev:4
mlock 149 start:8 len:8
mlock2 325 start:8 len:8 flags:4
mlockall 151 flags:4
mmap 9 addr:8 len:8 prot:8 flags:8 fd:8 off:8
modify_ldt 154 func:4 ptr:8 bytecount:8
mount 165 dev_name:8 dir_name:8 type:8 flags:8 data:8
mount_setattr 442 dfd:4 path:8 flags:4 uattr:8 usize:8
move_mount 429 from_dfd:4 from_pathname:8 to_dfd:4 to_pathname:8 flags:4
move_pages 279 pid:4 nr_pages:8 pages:8 nodes:8 status:8 flags:4
mprotect 10 start:8 len:8 prot:8
mq_getsetattr 245 mqdes:4 u_mqstat:8 u_omqstat:8
mq_notify 244 mqdes:4 u_notification:8
mq_open 240 u_name:8 oflag:4 mode:2 u_attr:8
mq_timedreceive 243 mqdes:4 u_msg_ptr:8 msg_len:8 u_msg_prio:8 u_abs_timeout:8
mq_timedsend 242 mqdes:4 u_msg_ptr:8 msg_len:8 msg_prio:4 u_abs_timeout:8
mq_unlink 241 u_name:8
mremap 25 addr:8 old_len:8 new_len:8 flags:8 new_addr:8
mseal 462 start:8 size:8 flags:4
msgctl 71 msqid:4 cmd:4 buf:8
msgget 68 key:4 msgflg:4
msgrcv 70 msqid:4 msgp:8 msgsz:8 msgtyp:8 msgflg:4
msgsnd 69 msqid:4 msgp:8 msgsz:8 msgflg:4
msync 26 start:8 len:8 flags:4
munlock 150 start:8 len:8
munlockall 152
munmap 11 addr:8 len:8
name_to_handle_at 303 dfd:4 name:8 handle:8 mnt_id:8 flag:4
nanosleep 35 rqtp:8 rmtp:8
newfstat 5 fd:4 statbuf:8
newfstatat 262 dfd:4 filename:8 statbuf:8 flag:4
newlstat 6 filename:8 statbuf:8
newstat 4 filename:8 statbuf:8
newuname 63 name:8
nfsservctl 180 cmd:4 argp:8 resp:8
open 2 filename:8 flags:4 mode:2
openat 257 dfd:4 filename:8 flags:4 mode:2
openat2 437 dfd:4 filename:8 how:8 size:8
open_by_handle_at 304 mountdirfd:4 handle:8 flags:4
open_tree 428 dfd:4 filename:8 flags:4
open_tree_attr 467 dfd:4 pathname:8 flags:4 attr:8 size:8
pause 34
perf_event_open 298 attr_uptr:8 pid:4 cpu:4 group_fd:4 flags:8
personality 135 personality:4
pidfd_getfd 438 pidfd:4 fd:4 flags:4
pidfd_open 434 pid:4 flags:4
pidfd_send_signal 424 pidfd:4 sig:4 info:8 flags:4
pipe 22 fildes:8
pipe2 293 fildes:8 flags:4
pivot_root 155 new_root:8 put_old:8
pkey_alloc 330 flags:4 init_val:4
pkey_free 331 pkey:4
pkey_mprotect 329 start:8 len:8 prot:8 pkey:4
poll 7 ufds:8 nfds:4 timeout_msecs:4
ppoll 271 ufds:8 nfds:4 tsp:8 sigmask:8 sigsetsize:8
prctl 157 option:4 arg2:8 arg3:8 arg4:8 arg5:8
pread64 17 fd:4 buf:8 count:8 pos:8
preadv 295 fd:8 vec:8 vlen:8 pos_l:8 pos_h:8
preadv2 327 fd:8 vec:8 vlen:8 pos_l:8 pos_h:8 flags:4
prlimit64 302 pid:4 resource:4 new_rlim:8 old_rlim:8
process_madvise 440 pidfd:4 vec:8 vlen:8 behavior:4 flags:4
process_mrelease 448 pidfd:4 flags:4
process_vm_readv 310 pid:4 lvec:8 liovcnt:8 rvec:8 riovcnt:8 flags:8
process_vm_writev 311 pid:4 lvec:8 liovcnt:8 rvec:8 riovcnt:8 flags:8
pselect6 270 n:4 inp:8 outp:8 exp:8 tsp:8 sig:8
ptrace 101 request:8 pid:8 addr:8 data:8
putpmsg 182
pwrite64 18 fd:4 buf:8 count:8 pos:8
pwritev 296 fd:8 vec:8 vlen:8 pos_l:8 pos_h:8
pwritev2 328 fd:8 vec:8 vlen:8 pos_l:8 pos_h:8 flags:4
query_module 178 name:8 which:4 buf:8 bufsize:8 ret:8
quotactl 179 cmd:4 special:8 id:4 addr:8
quotactl_fd 443 fd:4 cmd:4 id:4 addr:8
read 0 fd:4 buf:8 count:8
readahead 187 fd:4 offset:8 count:8
readlink 89 path:8 buf:8 bufsiz:4
readlinkat 267 dfd:4 pathname:8 buf:8 bufsiz:4
readv 19 fd:8 vec:8 vlen:8
reboot 169 magic1:4 magic2:4 cmd:4 arg:8
recvfrom 45 fd:4 ubuf:8 size:8 flags:4 addr:8 addr_len:8
recvmmsg 299 fd:4 mmsg:8 vlen:4 flags:4 timeout:8
recvmsg 47 fd:4 msg:8 flags:4
remap_file_pages 216 start:8 size:8 prot:8 pgoff:8 flags:8
removexattr 197 pathname:8 name:8
removexattrat 466 dfd:4 pathname:8 name:8
rename 82 oldname:8 newname:8
renameat 264 olddfd:4 oldname:8 newdfd:4 newname:8
renameat2 316 olddfd:4 oldname:8 newdfd:4 newname:8 flags:4
request_key 249 _type:8 _description:8 _callout_info:8 destringid:4
restart_syscall 219
rmdir 84 pathname:8
rseq 334 rseq:8 rseq_len:4 flags:4 sig:4
rt_sigaction 13 sig:4 act:8 oact:8 sigsetsize:8
rt_sigpending 127 uset:8 sigsetsize:8
rt_sigprocmask 14 how:4 nset:8 oset:8 sigsetsize:8
rt_sigqueueinfo 129 pid:4 sig:4 uinfo:8
rt_sigreturn 15
rt_sigsuspend 130 unewset:8 sigsetsize:8
rt_sigtimedwait 128 uthese:8 uinfo:8 uts:8 sigsetsize:8
rt_tgsigqueueinfo 297 tgid:4 pid:4 sig:4 uinfo:8
sched_getaffinity 204 pid:4 len:4 user_mask_ptr:8
sched_getattr 315 pid:4 uattr:8 size:4 flags:4
sched_getparam 143 pid:4 param:8
sched_get_priority_max 146 policy:4
sched_get_priority_min 147 policy:4
sched_getscheduler 145 pid:4
sched_rr_get_interval 148 pid:4 interval:8
sched_setaffinity 203 pid:4 len:4 user_mask_ptr:8
sched_setattr 314 pid:4 uattr:8 flags:4
sched_setparam 142 pid:4 param:8
sched_setscheduler 144 pid:4 policy:4 param:8
sched_yield 24
seccomp 317 op:4 flags:4 uargs:8
security 185
select 23 n:4 inp:8 outp:8 exp:8 tvp:8
semctl 66 semid:4 semnum:4 cmd:4 arg:8
semget 64 key:4 nsems:4 semflg:4
semop 65 semid:4 tsops:8 nsops:4
semtimedop 220 semid:4 tsops:8 nsops:4 timeout:8
sendfile64 40 out_fd:4 in_fd:4 offset:8 count:8
sendmmsg 307 fd:4 mmsg:8 vlen:4 flags:4
sendmsg 46 fd:4 msg:8 flags:4
sendto 44 fd:4 buff:8 len:8 flags:4 addr:8 addr_len:4
setdomainname 171 name:8 len:4
setfsgid 123 gid:4
setfsuid 122 uid:4
setgid 106 gid:4
setgroups 116 gidsetsize:4 grouplist:8
sethostname 170 name:8 len:4
setitimer 38 which:4 value:8 ovalue:8
set_mempolicy 238 mode:4 nmask:8 maxnode:8
set_mempolicy_home_node 450 start:8 len:8 home_node:4 flags:4
setns 308 fd:4 nstype:4
setpgid 109 pid:4 pgid:4
setpriority 141 which:4 who:4 niceval:4
setregid 114 rgid:4 egid:4
setresgid 119 rgid:4 egid:4 sgid:4
setresuid 117 ruid:4 euid:4 suid:4
setreuid 113 ruid:4 euid:4
setrlimit 160 resource:4 rlim:8
set_robust_list 273 head:8 len:8
setsid 112
setsockopt 54 fd:4 level:4 optname:4 optval:8 optlen:4
set_thread_area 205 u_info:8
set_tid_address 218 tidptr:8
settimeofday 164 tv:8 tz:8
setuid 105 uid:4
setxattr 188 pathname:8 name:8 value:8 size:8 flags:4
setxattrat 463 dfd:4 pathname:8 name:8 value:8 size:8 flags:4
shmat 30 shmid:4 shmaddr:8 shmflg:4
shmctl 31 shmid:4 cmd:4 buf:8
shmdt 67 shmaddr:8
shmget 29 key:4 size:8 shmflg:4
shutdown 48 fd:4 how:4
sigaltstack 131 uss:8 uoss:8
signalfd 282 ufd:4 user_mask:8 sizemask:8
signalfd4 289 ufd:4 user_mask:8 sizemask:8 flags:4
socket 41 family:4 type:4 protocol:4
socketpair 53 family:4 type:4 protocol:4 usockvec:8
splice 275 fd_in:4 off_in:8 fd_out:4 off_out:8 len:8 flags:4
statfs 137 pathname:8 buf:8
statmount 457 req:8 reqlen:8 smbuf:8 buflen:8 flags:4
statx 332 dfd:4 filename:8 flags:4 mask:4 statxbuf:8
swapoff 168 specialfile:8
swapon 167 specialfile:8 swap_flags:4
symlink 88 oldname:8 newname:8
symlinkat 266 oldname:8 newdfd:4 newname:8
sync 162
sync_file_range 277 fd:4 offset:8 nbytes:8 flags:4
syncfs 306 fd:4
sysctl 156 args:8
sysfs 139 option:4 arg1:8 arg2:8
sysinfo 99 info:8
syslog 103 type:4 buf:8 len:4
tee 276 fdin:4 fdout:4 len:8 flags:4
tgkill 234 tgid:4 pid:4 sig:4
time 201 tloc:8
timer_create 222 which_clock:4 timer_event_spec:8 created_timer_id:8
timer_delete 226 timer_id:4
timerfd_create 283 clockid:4 flags:4
timerfd_gettime 287 ufd:4 otmr:8
timerfd_settime 286 ufd:4 flags:4 utmr:8 otmr:8
timer_getoverrun 225 timer_id:4
timer_gettime 224 timer_id:4 setting:8
timer_settime 223 timer_id:4 flags:4 new_setting:8 old_setting:8
times 100 tbuf:8
tkill 200 pid:4 sig:4
truncate 76 path:8 length:8
tuxcall 184
umask 95 mask:4
umount 166 name:8 flags:4
unlink 87 pathname:8
unlinkat 263 dfd:4 pathname:8 flag:4
unshare 272 unshare_flags:8
uretprobe 335
uselib 134 library:8
userfaultfd 323 flags:4
ustat 136 dev:4 ubuf:8
utime 132 filename:8 times:8
utimensat 280 dfd:4 filename:8 utimes:8 flags:4
utimes 235 filename:8 utimes:8
vfork 58
vhangup 153
vmsplice 278 fd:4 iov:8 nr_segs:8 flags:4
vserver 236
wait4 61 upid:4 stat_addr:8 options:4 ru:8
waitid 247 which:4 upid:4 infop:8 options:4 ru:8
write 1 fd:4 buf:8 count:8
writev 20 fd:8 vec:8 vlen:8
`

// tableAArch64 is Kafel's aarch64 list (321 syscalls).
const tableAArch64 = `accept 202 fd:4 upeer_sockaddr:8 upeer_addrlen:8
accept4 242 fd:4 upeer_sockaddr:8 upeer_addrlen:8 flags:4
acct 89 name:8
add_key 217 _type:8 _description:8 _payload:8 plen:8 ringid:4
adjtimex 171 txc_p:8
bind 200 fd:4 umyaddr:8 addrlen:4
bpf 280 cmd:4 uattr:8 size:4
brk 214 brk:8
cachestat 451 fd:4 cstat_range:8 cstat:8 flags:4
capget 90 header:8 dataptr:8
capset 91 header:8 data:8
chdir 49 filename:8
chroot 51 filename:8
clock_adjtime 266 which_clock:4 utx:8
clock_getres 114 which_clock:4 tp:8
clock_gettime 113 which_clock:4 tp:8
clock_nanosleep 115 which_clock:4 flags:4 rqtp:8 rmtp:8
clock_settime 112 which_clock:4 tp:8
clone 220 clone_flags:8 newsp:8 parent_tidptr:8 tls:8 child_tidptr:8
clone3 435 uargs:8 size:8
close 57 fd:4
close_range 436 fd:4 max_fd:4 flags:4
connect 203 fd:4 uservaddr:8 addrlen:4
copy_file_range 285 fd_in:4 off_in:8 fd_out:4 off_out:8 len:8 flags:4
delete_module 106 name_user:8 flags:4
dup 23 fildes:4
dup3 24 oldfd:4 newfd:4 flags:4
epoll_create1 20 flags:4
epoll_ctl 21 epfd:4 op:4 fd:4 event:8
epoll_pwait 22 epfd:4 events:8 maxevents:4 timeout:4 sigmask:8 sigsetsize:8
epoll_pwait2 441 epfd:4 events:8 maxevents:4 timeout:8 sigmask:8 sigsetsize:8
eventfd2 19 count:4 flags:4
execve 221 filename:8 argv:8 envp:8
execveat 281 fd:4 filename:8 argv:8 envp:8 flags:4
exit 93 error_code:4
exit_group 94 error_code:4
faccessat 48 dfd:4 filename:8 mode:4
faccessat2 439 dfd:4 filename:8 mode:4 flags:4
fadvise64 223 fd:4 offset:8 len:8 advice:4
fallocate 47 fd:4 mode:4 offset:8 len:8
fanotify_init 262 flags:4 event_f_flags:4
fanotify_mark 263 fanotify_fd:4 flags:4 mask:8 dfd:4 pathname:8
fchdir 50 fd:4
fchmod 52 fd:4 mode:2
fchmodat 53 dfd:4 filename:8 mode:2
fchmodat2 452 dfd:4 filename:8 mode:2 flags:4
fchown 55 fd:4 user:4 group:4
fchownat 54 dfd:4 filename:8 user:4 group:4 flag:4
fcntl 25 fd:4 cmd:4 arg:8
fdatasync 83 fd:4
fgetxattr 10 fd:4 name:8 value:8 size:8
file_getattr 468 dfd:4 pathname:8 fileattr:8 flags:4
file_setattr 469 dfd:4 pathname:8 fileattr:8 flags:4
finit_module 273 fd:4 uargs:8 flags:4
flistxattr 13 fd:4 list:8 size:8
flock 32 fd:4 cmd:4
fremovexattr 16 fd:4 name:8
fsconfig 431 fd:4 cmd:4 key:8 value:8 aux:4
fsmount 432 fs_fd:4 flags:4 attr_flags:4
fsopen 430 fs_name:8 flags:4
fspick 433 dfd:4 path:8 flags:4
fsetxattr 7 fd:4 name:8 value:8 size:8 flags:4
fstatfs 44 fd:4 buf:8
fsync 82 fd:4
ftruncate 46 fd:4 length:8
futex 98 uaddr:8 op:4 val:4 utime:8 uaddr2:8 val3:4
futex_requeue 456 uaddr:8 nr_wake:4 nr_requeue:4 uaddr2:8 flags:4
futex_wait 455 uaddr:8 val:4 flags:4 timeout:8
futex_waitv 449 waiters:8 nr_futexes:4 flags:4 timeout:8 clockid:4
futex_wake 454 uaddr:8 nr_wake:4 flags_or_mask:4
getcpu 168 cpup:8 nodep:8 unused:8
getcwd 17 buf:8 size:8
getdents64 61 fd:4 dirent:8 count:4
getegid 177
geteuid 175
getgid 176
getgroups 158 gidsetsize:4 grouplist:8
getitimer 102 which:4 value:8
get_mempolicy 236 policy:8 nmask:8 maxnode:8 addr:8 flags:8
getpeername 205 fd:4 usockaddr:8 usockaddr_len:8
getpgid 155 pid:4
getpid 172
getppid 173
getpriority 141 which:4 who:4
getrandom 278 buf:8 count:8 flags:4
getresgid 150 rgidp:8 egidp:8 sgidp:8
getresuid 148 ruidp:8 euidp:8 suidp:8
getrlimit 163 resource:4 rlim:8
get_robust_list 100 pid:4 head_ptr:8 len_ptr:8
getrusage 165 who:4 ru:8
getsid 156 pid:4
getsockname 204 fd:4 usockaddr:8 usockaddr_len:8
getsockopt 209 fd:4 level:4 optname:4 optval:8 optlen:8
gettid 178
gettimeofday 169 tv:8 tz:8
getuid 174
getxattr 8 pathname:8 name:8 value:8 size:8
getxattrat 464 dfd:4 pathname:8 name:8 value:8 size:8
init_module 105 umod:8 len:8 uargs:8
inotify_add_watch 27 fd:4 pathname:8 mask:4
inotify_init1 26 flags:4
inotify_rm_watch 28 fd:4 wd:4
io_cancel 3 ctx_id:8 iocb:8 result:8
ioctl 29 fd:4 cmd:4 arg:8
io_destroy 1 ctx:8
io_getevents 4 ctx_id:8 min_nr:8 nr:8 events:8 timeout:8
io_uring_enter 426 fd:4 to_submit:4 min_complete:4 flags:4 argp:8 argsz:8
io_uring_register 427 fd:4 opcode:4 arg:8 nr_args:4
io_uring_setup 425 entries:4 params:8
ioprio_get 31 which:4 who:4
ioprio_set 30 which:4 who:4 ioprio:4
io_setup 0 nr_events:4 ctxp:8
io_submit 2 ctx_id:8 nr:8 iocbpp:8
kcmp 272 pid1:4 pid2:4 type:4 idx1:8 idx2:8
kexec_file_load 294 kernel_fd:4 initrd_fd:4 cmdline_len:8 cmdline_ptr:8 flags:8
kexec_load 104 entry:8 nr_segments:8 segments:8 flags:8
keyctl 219 option:4 arg2:8 arg3:8 arg4:8 arg5:8
kill 129 pid:4 sig:4
landlock_add_rule 445 ruleset_fd:4 rule_type:4 rule_attr:8 flags:4
landlock_create_ruleset 444 attr:8 size:8 flags:4
landlock_restrict_self 446 ruleset_fd:4 flags:4
lgetxattr 9 pathname:8 name:8 value:8 size:8
linkat 37 olddfd:4 oldname:8 newdfd:4 newname:8 flags:4
listen 201 fd:4 backlog:4
listmount 458 req:8 reqlen:8 buf:8 bufsize:8 flags:4
listxattr 11 pathname:8 list:8 size:8
listxattrat 465 dfd:4 pathname:8 list:8 size:8
llistxattr 12 pathname:8 list:8 size:8
lookup_dcookie 18 cookie64:8 buf:8 len:8
lremovexattr 15 pathname:8 name:8
lseek 62 fd:4 offset:8 whence:4
lsetxattr 6 pathname:8 name:8 value:8 size:8 flags:4
lsm_get_self_attr 459 attr:4 ctx:8 size_ptr:8 flags:4
lsm_list_modules 461 ids:8 size_ptr:8 flags:4
lsm_set_self_attr 460 attr:4 ctx:8 size:8 flags:4
madvise 233 start:8 len_in:8 behavior:4
map_shadow_stack 453 addr:8 size:8 flags:4
mbind 235 start:8 len:8 mode:8 nmask:8 maxnode:8 flags:4
membarrier 283 cmd:4 flags:4
memfd_create 279 uname:8 flags:4
memfd_secret 447 flags:4
migrate_pages 238 pid:4 maxnode:8 old_nodes:8 new_nodes:8
mincore 232 start:8 len:8 vec:8
mkdirat 34 dfd:4 pathname:8 mode:2
mknodat 33 dfd:4 filename:8 mode:2 dev:4
mlock 228 start:8 len:8
mlock2 284 start:8 len:8 flags:4
mlockall 230 flags:4
mmap 222 addr:8 len:8 prot:8 flags:8 fd:8 off:8
mount 40 dev_name:8 dir_name:8 type:8 flags:8 data:8
mount_setattr 442 dfd:4 path:8 flags:4 uattr:8 usize:8
move_mount 429 from_dfd:4 from_pathname:8 to_dfd:4 to_pathname:8 flags:4
move_pages 239 pid:4 nr_pages:8 pages:8 nodes:8 status:8 flags:4
mprotect 226 start:8 len:8 prot:8
mq_getsetattr 185 mqdes:4 u_mqstat:8 u_omqstat:8
mq_notify 184 mqdes:4 u_notification:8
mq_open 180 u_name:8 oflag:4 mode:2 u_attr:8
mq_timedreceive 183 mqdes:4 u_msg_ptr:8 msg_len:8 u_msg_prio:8 u_abs_timeout:8
mq_timedsend 182 mqdes:4 u_msg_ptr:8 msg_len:8 msg_prio:4 u_abs_timeout:8
mq_unlink 181 u_name:8
mremap 216 addr:8 old_len:8 new_len:8 flags:8 new_addr:8
mseal 462 start:8 size:8 flags:4
msgctl 187 msqid:4 cmd:4 buf:8
msgget 186 key:4 msgflg:4
msgrcv 188 msqid:4 msgp:8 msgsz:8 msgtyp:8 msgflg:4
msgsnd 189 msqid:4 msgp:8 msgsz:8 msgflg:4
msync 227 start:8 len:8 flags:4
munlock 229 start:8 len:8
munlockall 231
munmap 215 addr:8 len:8
name_to_handle_at 264 dfd:4 name:8 handle:8 mnt_id:8 flag:4
nanosleep 101 rqtp:8 rmtp:8
newfstat 80 fd:4 statbuf:8
newfstatat 79 dfd:4 filename:8 statbuf:8 flag:4
newuname 160 name:8
nfsservctl 42 cmd:4 argp:8 resp:8
openat 56 dfd:4 filename:8 flags:4 mode:2
openat2 437 dfd:4 filename:8 how:8 size:8
open_by_handle_at 265 mountdirfd:4 handle:8 flags:4
open_tree 428 dfd:4 filename:8 flags:4
open_tree_attr 467 dfd:4 pathname:8 flags:4 attr:8 size:8
perf_event_open 241 attr_uptr:8 pid:4 cpu:4 group_fd:4 flags:8
personality 92 personality:4
pidfd_getfd 438 pidfd:4 fd:4 flags:4
pidfd_open 434 pid:4 flags:4
pidfd_send_signal 424 pidfd:4 sig:4 info:8 flags:4
pipe2 59 fildes:8 flags:4
pivot_root 41 new_root:8 put_old:8
ppoll 73 ufds:8 nfds:4 tsp:8 sigmask:8 sigsetsize:8
prctl 167 option:4 arg2:8 arg3:8 arg4:8 arg5:8
pread64 67 fd:4 buf:8 count:8 pos:8
preadv 69 fd:8 vec:8 vlen:8 pos_l:8 pos_h:8
preadv2 286 fd:8 vec:8 vlen:8 pos_l:8 pos_h:8 flags:4
prlimit64 261 pid:4 resource:4 new_rlim:8 old_rlim:8
process_madvise 440 pidfd:4 vec:8 vlen:8 behavior:4 flags:4
process_mrelease 448 pidfd:4 flags:4
process_vm_readv 270 pid:4 lvec:8 liovcnt:8 rvec:8 riovcnt:8 flags:8
process_vm_writev 271 pid:4 lvec:8 liovcnt:8 rvec:8 riovcnt:8 flags:8
pselect6 72 n:4 inp:8 outp:8 exp:8 tsp:8 sig:8
ptrace 117 request:8 pid:8 addr:8 data:8
pwrite64 68 fd:4 buf:8 count:8 pos:8
pwritev 70 fd:8 vec:8 vlen:8 pos_l:8 pos_h:8
pwritev2 287 fd:8 vec:8 vlen:8 pos_l:8 pos_h:8 flags:4
quotactl 60 cmd:4 special:8 id:4 addr:8
quotactl_fd 443 fd:4 cmd:4 id:4 addr:8
read 63 fd:4 buf:8 count:8
readahead 213 fd:4 offset:8 count:8
readlinkat 78 dfd:4 pathname:8 buf:8 bufsiz:4
readv 65 fd:8 vec:8 vlen:8
reboot 142 magic1:4 magic2:4 cmd:4 arg:8
recvfrom 207 fd:4 ubuf:8 size:8 flags:4 addr:8 addr_len:8
recvmmsg 243 fd:4 mmsg:8 vlen:4 flags:4 timeout:8
recvmsg 212 fd:4 msg:8 flags:4
remap_file_pages 234 start:8 size:8 prot:8 pgoff:8 flags:8
removexattr 14 pathname:8 name:8
removexattrat 466 dfd:4 pathname:8 name:8
renameat 38 olddfd:4 oldname:8 newdfd:4 newname:8
renameat2 276 olddfd:4 oldname:8 newdfd:4 newname:8 flags:4
request_key 218 _type:8 _description:8 _callout_info:8 destringid:4
restart_syscall 128
rseq 293 rseq:8 rseq_len:4 flags:4 sig:4
rt_sigaction 134 sig:4 act:8 oact:8 sigsetsize:8
rt_sigpending 136 uset:8 sigsetsize:8
rt_sigprocmask 135 how:4 nset:8 oset:8 sigsetsize:8
rt_sigqueueinfo 138 pid:4 sig:4 uinfo:8
rt_sigreturn 139
rt_sigsuspend 133 unewset:8 sigsetsize:8
rt_sigtimedwait 137 uthese:8 uinfo:8 uts:8 sigsetsize:8
rt_tgsigqueueinfo 240 tgid:4 pid:4 sig:4 uinfo:8
sched_getaffinity 123 pid:4 len:4 user_mask_ptr:8
sched_getattr 275 pid:4 uattr:8 size:4 flags:4
sched_getparam 121 pid:4 param:8
sched_get_priority_max 125 policy:4
sched_get_priority_min 126 policy:4
sched_getscheduler 120 pid:4
sched_rr_get_interval 127 pid:4 interval:8
sched_setaffinity 122 pid:4 len:4 user_mask_ptr:8
sched_setattr 274 pid:4 uattr:8 flags:4
sched_setparam 118 pid:4 param:8
sched_setscheduler 119 pid:4 policy:4 param:8
sched_yield 124
seccomp 277 op:4 flags:4 uargs:8
semctl 191 semid:4 semnum:4 cmd:4 arg:8
semget 190 key:4 nsems:4 semflg:4
semop 193 semid:4 tsops:8 nsops:4
semtimedop 192 semid:4 tsops:8 nsops:4 timeout:8
sendfile 71 out_fd:4 in_fd:4 offset:8 count:8
sendmmsg 269 fd:4 mmsg:8 vlen:4 flags:4
sendmsg 211 fd:4 msg:8 flags:4
sendto 206 fd:4 buff:8 len:8 flags:4 addr:8 addr_len:4
setdomainname 162 name:8 len:4
setfsgid 152 gid:4
setfsuid 151 uid:4
setgid 144 gid:4
setgroups 159 gidsetsize:4 grouplist:8
sethostname 161 name:8 len:4
setitimer 103 which:4 value:8 ovalue:8
set_mempolicy 237 mode:4 nmask:8 maxnode:8
set_mempolicy_home_node 450 start:8 len:8 home_node:4 flags:4
setns 268 fd:4 nstype:4
setpgid 154 pid:4 pgid:4
setpriority 140 which:4 who:4 niceval:4
setregid 143 rgid:4 egid:4
setresgid 149 rgid:4 egid:4 sgid:4
setresuid 147 ruid:4 euid:4 suid:4
setreuid 145 ruid:4 euid:4
setrlimit 164 resource:4 rlim:8
set_robust_list 99 head:8 len:8
setsid 157
setsockopt 208 fd:4 level:4 optname:4 optval:8 optlen:4
set_tid_address 96 tidptr:8
settimeofday 170 tv:8 tz:8
setuid 146 uid:4
setxattr 5 pathname:8 name:8 value:8 size:8 flags:4
setxattrat 463 dfd:4 pathname:8 name:8 value:8 size:8 flags:4
shmat 196 shmid:4 shmaddr:8 shmflg:4
shmctl 195 shmid:4 cmd:4 buf:8
shmdt 197 shmaddr:8
shmget 194 key:4 size:8 shmflg:4
shutdown 210 fd:4 how:4
sigaltstack 132 uss:8 uoss:8
signalfd4 74 ufd:4 user_mask:8 sizemask:8 flags:4
socket 198 family:4 type:4 protocol:4
socketpair 199 family:4 type:4 protocol:4 usockvec:8
splice 76 fd_in:4 off_in:8 fd_out:4 off_out:8 len:8 flags:4
statfs 43 pathname:8 buf:8
statmount 457 req:8 reqlen:8 smbuf:8 buflen:8 flags:4
statx 291 dfd:4 filename:8 flags:4 mask:4 statxbuf:8
swapoff 225 specialfile:8
swapon 224 specialfile:8 swap_flags:4
symlinkat 36 oldname:8 newdfd:4 newname:8
sync 81
sync_file_range2 84 fd:4 offset:8 nbytes:8 flags:4
syncfs 267 fd:4
sysinfo 179 info:8
syslog 116 type:4 buf:8 len:4
tee 77 fdin:4 fdout:4 len:8 flags:4
tgkill 131 tgid:4 pid:4 sig:4
timer_create 107 which_clock:4 timer_event_spec:8 created_timer_id:8
timer_delete 111 timer_id:4
timerfd_create 85 clockid:4 flags:4
timerfd_gettime 87 ufd:4 otmr:8
timerfd_settime 86 ufd:4 flags:4 utmr:8 otmr:8
timer_getoverrun 109 timer_id:4
timer_gettime 108 timer_id:4 setting:8
timer_settime 110 timer_id:4 flags:4 new_setting:8 old_setting:8
times 153 tbuf:8
tkill 130 pid:4 sig:4
truncate 45 path:8 length:8
umask 166 mask:4
umount 39 name:8 flags:4
unlinkat 35 dfd:4 pathname:8 flag:4
unshare 97 unshare_flags:8
userfaultfd 282 flags:4
utimensat 88 dfd:4 filename:8 utimes:8 flags:4
vhangup 58
vmsplice 75 fd:4 iov:8 nr_segs:8 flags:4
wait4 260 upid:4 stat_addr:8 options:4 ru:8
waitid 95 which:4 upid:4 infop:8 options:4 ru:8
write 64 fd:4 buf:8 count:8
writev 66 fd:8 vec:8 vlen:8
`

// tableI386 is Kafel's i386 list (349 syscalls).
const tableI386 = `accept4 364 fd:4 upeer_sockaddr:4 upeer_addrlen:4 flags:4
access 33 filename:4 mode:4
acct 51 name:4
add_key 286 _type:4 _description:4 _payload:4 plen:4 ringid:4
adjtimex 124 txc_p:4
alarm 27 seconds:4
arch_prctl 384 option:4 arg2:4
bdflush 134 func:4 data:4
bind 361 fd:4 umyaddr:4 addrlen:4
brk 45 brk:4
capget 184 header:4 dataptr:4
capset 185 header:4 data:4
chdir 12 filename:4
chmod 15 filename:4 mode:2
chown 212 filename:4 user:4 group:4
chown16 182 filename:4 user:2 group:2
chroot 61 filename:4
clock_adjtime 343 which_clock:4 utx:4
clock_getres 266 which_clock:4 tp:4
clock_gettime 265 which_clock:4 tp:4
clock_nanosleep 267 which_clock:4 flags:4 rqtp:4 rmtp:4
clock_settime 264 which_clock:4 tp:4
clone 120 clone_flags:4 newsp:4 parent_tidptr:4 tls:4 child_tidptr:4
close 6 fd:4
connect 362 fd:4 uservaddr:4 addrlen:4
copy_file_range 377 fd_in:4 off_in:4 fd_out:4 off_out:4 len:4 flags:4
creat 8 pathname:4 mode:2
delete_module 129 name_user:4 flags:4
dup 41 fildes:4
dup2 63 oldfd:4 newfd:4
dup3 330 oldfd:4 newfd:4 flags:4
epoll_create 254 size:4
epoll_create1 329 flags:4
epoll_ctl 255 epfd:4 op:4 fd:4 event:4
epoll_pwait 319 epfd:4 events:4 maxevents:4 timeout:4 sigmask:4 sigsetsize:4
epoll_wait 256 epfd:4 events:4 maxevents:4 timeout:4
eventfd 323 count:4
eventfd2 328 count:4 flags:4
execve 11 filename:4 argv:4 envp:4
execveat 358 fd:4 filename:4 argv:4 envp:4 flags:4
exit 1 error_code:4
exit_group 252 error_code:4
faccessat 307 dfd:4 filename:4 mode:4
fadvise64 250 fd:4 offset:8 len:4 advice:4
fadvise64_64 272 fd:4 offset:8 len:8 advice:4
fallocate 324 fd:4 mode:4 offset:8 len:8
fanotify_init 338 flags:4 event_f_flags:4
fanotify_mark 339 fanotify_fd:4 flags:4 mask:8 dfd:4 pathname:4
fchdir 133 fd:4
fchmod 94 fd:4 mode:2
fchmodat 306 dfd:4 filename:4 mode:2
fchown 207 fd:4 user:4 group:4
fchown16 95 fd:4 user:2 group:2
fchownat 298 dfd:4 filename:4 user:4 group:4 flags:4
fcntl 55 fd:4 cmd:4 arg:4
fcntl64 221 fd:4 cmd:4 arg:4
fdatasync 148 fd:4
fgetxattr 231 fd:4 name:4 value:4 size:4
finit_module 350 fd:4 uargs:4 flags:4
flistxattr 234 fd:4 list:4 size:4
flock 143 fd:4 cmd:4
fork 2
fremovexattr 237 fd:4 name:4
fsetxattr 228 fd:4 name:4 value:4 size:4 flags:4
fstat 28 fd:4 statbuf:4
fstat64 197 fd:4 statbuf:4
fstatat64 300 dfd:4 filename:4 statbuf:4 flag:4
fstatfs 100 fd:4 buf:4
fstatfs64 269 fd:4 sz:4 buf:4
fsync 118 fd:4
ftruncate 93 fd:4 length:4
ftruncate64 194 fd:4 length:8
futex 240 uaddr:4 op:4 val:4 utime:4 uaddr2:4 val3:4
futimesat 299 dfd:4 filename:4 utimes:4
getcpu 318 cpup:4 nodep:4 unused:4
getcwd 183 buf:4 size:4
getdents 141 fd:4 dirent:4 count:4
getdents64 220 fd:4 dirent:4 count:4
getegid 202
getegid16 50
geteuid 201
geteuid16 49
getgid 200
getgid16 47
getgroups 205 gidsetsize:4 grouplist:4
getgroups16 80 gidsetsize:4 grouplist:4
getitimer 105 which:4 value:4
getpeername 368 fd:4 usockaddr:4 usockaddr_len:4
getpgid 132 pid:4
getpgrp 65
getpid 20
getppid 64
getpriority 96 which:4 who:4
getrandom 355 buf:4 count:4 flags:4
getresgid 211 rgidp:4 egidp:4 sgidp:4
getresgid16 171 rgidp:4 egidp:4 sgidp:4
getresuid 209 ruidp:4 euidp:4 suidp:4
getresuid16 165 ruidp:4 euidp:4 suidp:4
getrlimit 191 resource:4 rlim:4
get_robust_list 312 pid:4 head_ptr:4 len_ptr:4
getrusage 77 who:4 ru:4
getsid 147 pid:4
getsockname 367 fd:4 usockaddr:4 usockaddr_len:4
getsockopt 365 fd:4 level:4 optname:4 optval:4 optlen:4
get_thread_area 244 u_info:4
gettid 224
gettimeofday 78 tv:4 tz:4
getuid 199
getuid16 24
getxattr 229 pathname:4 name:4 value:4 size:4
init_module 128 umod:4 len:4 uargs:4
inotify_add_watch 292 fd:4 pathname:4 mask:4
inotify_init 291
inotify_init1 332 flags:4
inotify_rm_watch 293 fd:4 wd:4
io_cancel 249 ctx_id:4 iocb:4 result:4
ioctl 54 fd:4 cmd:4 arg:4
io_destroy 246 ctx:4
io_getevents 247 ctx_id:4 min_nr:4 nr:4 events:4 timeout:4
ioperm 101 from:4 num:4 turn_on:4
iopl 110 level:4
ioprio_get 290 which:4 who:4
ioprio_set 289 which:4 who:4 ioprio:4
io_setup 245 nr_events:4 ctxp:4
io_submit 248 ctx_id:4 nr:4 iocbpp:4
ipc 117 call:4 first:4 second:4 third:4 ptr:4 fifth:4
kexec_load 283 entry:4 nr_segments:4 segments:4 flags:4
keyctl 288 option:4 arg2:4 arg3:4 arg4:4 arg5:4
kill 37 pid:4 sig:4
lchown 198 filename:4 user:4 group:4
lchown16 16 filename:4 user:2 group:2
lgetxattr 230 pathname:4 name:4 value:4 size:4
link 9 oldname:4 newname:4
linkat 303 olddfd:4 oldname:4 newdfd:4 newname:4 flags:4
listen 363 fd:4 backlog:4
listxattr 232 pathname:4 list:4 size:4
llistxattr 233 pathname:4 list:4 size:4
llseek 140 fd:4 offset_high:4 offset_low:4 result:4 whence:4
lookup_dcookie 253 cookie64:8 buf:4 len:4
lremovexattr 236 pathname:4 name:4
lseek 19 fd:4 offset:4 whence:4
lsetxattr 227 pathname:4 name:4 value:4 size:4 flags:4
lstat 84 filename:4 statbuf:4
lstat64 196 filename:4 statbuf:4
madvise 219 start:4 len_in:4 behavior:4
membarrier 375 cmd:4 flags:4
memfd_create 356 uname:4 flags:4
mincore 218 start:4 len:4 vec:4
mkdir 39 pathname:4 mode:2
mkdirat 296 dfd:4 pathname:4 mode:2
mknod 14 filename:4 mode:2 dev:4
mknodat 297 dfd:4 filename:4 mode:2 dev:4
mlock 150 start:4 len:4
mlock2 376 start:4 len:4 flags:4
mlockall 152 flags:4
mmap_pgoff 192 addr:4 len:4 prot:4 flags:4 fd:4 pgoff:4
modify_ldt 123 func:4 ptr:4 bytecount:4
mount 21 dev_name:4 dir_name:4 type:4 flags:4 data:4
mprotect 125 start:4 len:4 prot:4
mq_getsetattr 282 mqdes:4 u_mqstat:4 u_omqstat:4
mq_notify 281 mqdes:4 u_notification:4
mq_open 277 u_name:4 oflag:4 mode:2 u_attr:4
mq_timedreceive 280 mqdes:4 u_msg_ptr:4 msg_len:4 u_msg_prio:4 u_abs_timeout:4
mq_timedsend 279 mqdes:4 u_msg_ptr:4 msg_len:4 msg_prio:4 u_abs_timeout:4
mq_unlink 278 u_name:4
mremap 163 addr:4 old_len:4 new_len:4 flags:4 new_addr:4
msync 144 start:4 len:4 flags:4
munlock 151 start:4 len:4
munlockall 153
munmap 91 addr:4 len:4
name_to_handle_at 341 dfd:4 name:4 handle:4 mnt_id:4 flag:4
nanosleep 162 rqtp:4 rmtp:4
newfstat 108 fd:4 statbuf:4
newlstat 107 filename:4 statbuf:4
newstat 106 filename:4 statbuf:4
newuname 122 name:4
nice 34 increment:4
old_getrlimit 76 resource:4 rlim:4
old_mmap 90 arg:4
old_readdir 89 fd:4 dirent:4 count:4
old_select 82 arg:4
oldumount 22 name:4
olduname 59 name:4
open 5 filename:4 flags:4 mode:2
openat 295 dfd:4 filename:4 flags:4 mode:2
open_by_handle_at 342 mountdirfd:4 handle:4 flags:4
pause 29
perf_event_open 336 attr_uptr:4 pid:4 cpu:4 group_fd:4 flags:4
personality 136 personality:4
pipe 42 fildes:4
pipe2 331 fildes:4 flags:4
pivot_root 217 new_root:4 put_old:4
poll 168 ufds:4 nfds:4 timeout_msecs:4
ppoll 309 ufds:4 nfds:4 tsp:4 sigmask:4 sigsetsize:4
prctl 172 option:4 arg2:4 arg3:4 arg4:4 arg5:4
pread64 180 fd:4 buf:4 count:4 pos:8
preadv 333 fd:4 vec:4 vlen:4 pos_l:4 pos_h:4
preadv2 378 fd:4 vec:4 vlen:4 pos_l:4 pos_h:4 flags:4
prlimit64 340 pid:4 resource:4 new_rlim:4 old_rlim:4
process_vm_readv 347 pid:4 lvec:4 liovcnt:4 rvec:4 riovcnt:4 flags:4
process_vm_writev 348 pid:4 lvec:4 liovcnt:4 rvec:4 riovcnt:4 flags:4
pselect6 308 n:4 inp:4 outp:4 exp:4 tsp:4 sig:4
ptrace 26 request:4 pid:4 addr:4 data:4
pwrite64 181 fd:4 buf:4 count:4 pos:8
pwritev 334 fd:4 vec:4 vlen:4 pos_l:4 pos_h:4
pwritev2 379 fd:4 vec:4 vlen:4 pos_l:4 pos_h:4 flags:4
quotactl 131 cmd:4 special:4 id:4 addr:4
read 3 fd:4 buf:4 count:4
readahead 225 fd:4 offset:8 count:4
readlink 85 path:4 buf:4 bufsiz:4
readlinkat 305 dfd:4 pathname:4 buf:4 bufsiz:4
readv 145 fd:4 vec:4 vlen:4
reboot 88 magic1:4 magic2:4 cmd:4 arg:4
recvfrom 371 fd:4 ubuf:4 size:4 flags:4 addr:4 addr_len:4
recvmmsg 337 fd:4 mmsg:4 vlen:4 flags:4 timeout:4
recvmsg 372 fd:4 msg:4 flags:4
remap_file_pages 257 start:4 size:4 prot:4 pgoff:4 flags:4
removexattr 235 pathname:4 name:4
rename 38 oldname:4 newname:4
renameat 302 olddfd:4 oldname:4 newdfd:4 newname:4
renameat2 353 olddfd:4 oldname:4 newdfd:4 newname:4 flags:4
request_key 287 _type:4 _description:4 _callout_info:4 destringid:4
restart_syscall 0
rmdir 40 pathname:4
rt_sigaction 174 sig:4 act:4 oact:4 sigsetsize:4
rt_sigpending 176 uset:4 sigsetsize:4
rt_sigprocmask 175 how:4 nset:4 oset:4 sigsetsize:4
rt_sigqueueinfo 178 pid:4 sig:4 uinfo:4
rt_sigsuspend 179 unewset:4 sigsetsize:4
rt_sigtimedwait 177 uthese:4 uinfo:4 uts:4 sigsetsize:4
rt_tgsigqueueinfo 335 tgid:4 pid:4 sig:4 uinfo:4
sched_getaffinity 242 pid:4 len:4 user_mask_ptr:4
sched_getattr 352 pid:4 uattr:4 size:4 flags:4
sched_getparam 155 pid:4 param:4
sched_get_priority_max 159 policy:4
sched_get_priority_min 160 policy:4
sched_getscheduler 157 pid:4
sched_rr_get_interval 161 pid:4 interval:4
sched_setaffinity 241 pid:4 len:4 user_mask_ptr:4
sched_setattr 351 pid:4 uattr:4 flags:4
sched_setparam 154 pid:4 param:4
sched_setscheduler 156 pid:4 policy:4 param:4
sched_yield 158
seccomp 354 op:4 flags:4 uargs:4
select 142 n:4 inp:4 outp:4 exp:4 tvp:4
sendfile 187 out_fd:4 in_fd:4 offset:4 count:4
sendfile64 239 out_fd:4 in_fd:4 offset:4 count:4
sendmmsg 345 fd:4 mmsg:4 vlen:4 flags:4
sendmsg 370 fd:4 msg:4 flags:4
sendto 369 fd:4 buff:4 len:4 flags:4 addr:4 addr_len:4
setdomainname 121 name:4 len:4
setfsgid 216 gid:4
setfsgid16 139 gid:2
setfsuid 215 uid:4
setfsuid16 138 uid:2
setgid 214 gid:4
setgid16 46 gid:2
setgroups 206 gidsetsize:4 grouplist:4
setgroups16 81 gidsetsize:4 grouplist:4
sethostname 74 name:4 len:4
setitimer 104 which:4 value:4 ovalue:4
setns 346 fd:4 nstype:4
setpgid 57 pid:4 pgid:4
setpriority 97 which:4 who:4 niceval:4
setregid 204 rgid:4 egid:4
setregid16 71 rgid:2 egid:2
setresgid 210 rgid:4 egid:4 sgid:4
setresgid16 170 rgid:2 egid:2 sgid:2
setresuid 208 ruid:4 euid:4 suid:4
setresuid16 164 ruid:2 euid:2 suid:2
setreuid 203 ruid:4 euid:4
setreuid16 70 ruid:2 euid:2
setrlimit 75 resource:4 rlim:4
set_robust_list 311 head:4 len:4
setsid 66
setsockopt 366 fd:4 level:4 optname:4 optval:4 optlen:4
set_thread_area 243 u_info:4
set_tid_address 258 tidptr:4
settimeofday 79 tv:4 tz:4
setuid 213 uid:4
setuid16 23 uid:2
setxattr 226 pathname:4 name:4 value:4 size:4 flags:4
sgetmask 68
shutdown 373 fd:4 how:4
sigaction 67 sig:4 act:4 oact:4
sigaltstack 186 uss:4 uoss:4
signal 48 sig:4 handler:4
signalfd 321 ufd:4 user_mask:4 sizemask:4
signalfd4 327 ufd:4 user_mask:4 sizemask:4 flags:4
sigpending 73 set:4
sigprocmask 126 how:4 nset:4 oset:4
sigsuspend 72 unused1:4 unused2:4 mask:4
socket 359 family:4 type:4 protocol:4
socketcall 102 call:4 args:4
socketpair 360 family:4 type:4 protocol:4 usockvec:4
splice 313 fd_in:4 off_in:4 fd_out:4 off_out:4 len:4 flags:4
ssetmask 69 newmask:4
stat 18 filename:4 statbuf:4
stat64 195 filename:4 statbuf:4
statfs 99 pathname:4 buf:4
statfs64 268 pathname:4 sz:4 buf:4
statx 383 dfd:4 filename:4 flags:4 mask:4 buffer:4
stime 25 tptr:4
swapoff 115 specialfile:4
swapon 87 specialfile:4 swap_flags:4
symlink 83 oldname:4 newname:4
symlinkat 304 oldname:4 newdfd:4 newname:4
sync 36
sync_file_range 314 fd:4 offset:8 nbytes:8 flags:4
syncfs 344 fd:4
sysctl 149 args:4
sysfs 135 option:4 arg1:4 arg2:4
sysinfo 116 info:4
syslog 103 type:4 buf:4 len:4
tee 315 fdin:4 fdout:4 len:4 flags:4
tgkill 270 tgid:4 pid:4 sig:4
time 13 tloc:4
timer_create 259 which_clock:4 timer_event_spec:4 created_timer_id:4
timer_delete 263 timer_id:4
timerfd_create 322 clockid:4 flags:4
timerfd_gettime 326 ufd:4 otmr:4
timerfd_settime 325 ufd:4 flags:4 utmr:4 otmr:4
timer_getoverrun 262 timer_id:4
timer_gettime 261 timer_id:4 setting:4
timer_settime 260 timer_id:4 flags:4 new_setting:4 old_setting:4
times 43 tbuf:4
tkill 238 pid:4 sig:4
truncate 92 path:4 length:4
truncate64 193 path:4 length:8
umask 60 mask:4
umount 52 name:4 flags:4
uname 109 name:4
unlink 10 pathname:4
unlinkat 301 dfd:4 pathname:4 flags:4
unshare 310 unshare_flags:4
ustat 62 dev:4 ubuf:4
utime 30 filename:4 times:4
utimensat 320 dfd:4 filename:4 utimes:4 flags:4
utimes 271 filename:4 utimes:4
vfork 190
vhangup 111
vm86 166 cmd:4 arg:4
vm86old 113 user_vm86:4
vmsplice 316 fd:4 iov:4 nr_segs:4 flags:4
wait4 114 upid:4 stat_addr:4 options:4 ru:4
waitid 284 which:4 upid:4 infop:4 options:4 ru:4
waitpid 7 pid:4 stat_addr:4 options:4
write 4 fd:4 buf:4 count:4
writev 146 fd:4 vec:4 vlen:4
`

// tableARM is Kafel's arm list (366 syscalls).
const tableARM = `accept 285 fd:4 upeer_sockaddr:4 upeer_addrlen:4
accept4 366 fd:4 upeer_sockaddr:4 upeer_addrlen:4 flags:4
access 33 filename:4 mode:4
acct 51 name:4
add_key 309 _type:4 _description:4 _payload:4 plen:4 ringid:4
adjtimex 124 txc_p:4
alarm 27 seconds:4
arm_fadvise64_64 270 fd:4 offset:8 len:8
bdflush 134 func:4 data:4
bind 282 fd:4 umyaddr:4 addrlen:4
bpf 386 cmd:4 uattr:4 size:4
breakpoint 983041
brk 45 brk:4
cacheflush 983042 vaddr_from:4 vaddr_to:4 flags:4
capget 184 header:4 dataptr:4
capset 185 header:4 data:4
chdir 12 filename:4
chmod 15 filename:4 mode:2
chown 212 filename:4 user:4 group:4
chown16 182 filename:4 user:2 group:2
chroot 61 filename:4
clock_adjtime 372 which_clock:4 utx:4
clock_getres 264 which_clock:4 tp:4
clock_gettime 263 which_clock:4 tp:4
clock_nanosleep 265 which_clock:4 flags:4 rqtp:4 rmtp:4
clock_settime 262 which_clock:4 tp:4
clone 120 clone_flags:4 newsp:4 parent_tidptr:4 tls:4 child_tidptr:4
close 6 fd:4
connect 283 fd:4 uservaddr:4 addrlen:4
copy_file_range 391 fd_in:4 off_in:4 fd_out:4 off_out:4 len:4 flags:4
creat 8 pathname:4 mode:2
delete_module 129 name_user:4 flags:4
dup 41 fildes:4
dup2 63 oldfd:4 newfd:4
dup3 358 oldfd:4 newfd:4 flags:4
epoll_create 250 size:4
epoll_create1 357 flags:4
epoll_ctl 251 epfd:4 op:4 fd:4 event:4
epoll_pwait 346 epfd:4 events:4 maxevents:4 timeout:4 sigmask:4 sigsetsize:4
epoll_wait 252 epfd:4 events:4 maxevents:4 timeout:4
eventfd 351 count:4
eventfd2 356 count:4 flags:4
execve 11 filename:4 argv:4 envp:4
execveat 387 fd:4 filename:4 argv:4 envp:4 flags:4
exit 1 error_code:4
exit_group 248 error_code:4
faccessat 334 dfd:4 filename:4 mode:4
fallocate 352 fd:4 mode:4 offset:8 len:8
fanotify_init 367 flags:4 event_f_flags:4
fanotify_mark 368 fanotify_fd:4 flags:4 mask:8 dfd:4 pathname:4
fchdir 133 fd:4
fchmod 94 fd:4 mode:2
fchmodat 333 dfd:4 filename:4 mode:2
fchown 207 fd:4 user:4 group:4
fchown16 95 fd:4 user:2 group:2
fchownat 325 dfd:4 filename:4 user:4 group:4 flags:4
fcntl 55 fd:4 cmd:4 arg:4
fcntl64 221 fd:4 cmd:4 arg:4
fdatasync 148 fd:4
fgetxattr 231 fd:4 name:4 value:4 size:4
finit_module 379 fd:4 uargs:4 flags:4
flistxattr 234 fd:4 list:4 size:4
flock 143 fd:4 cmd:4
fork 2
fremovexattr 237 fd:4 name:4
fsetxattr 228 fd:4 name:4 value:4 size:4 flags:4
fstat64 197 fd:4 statbuf:4
fstatat64 327 dfd:4 filename:4 statbuf:4 flag:4
fstatfs 100 fd:4 buf:4
fstatfs64 267 fd:4 sz:4 buf:4
fsync 118 fd:4
ftruncate 93 fd:4 length:4
ftruncate64 194 fd:4 length:8
futex 240 uaddr:4 op:4 val:4 utime:4 uaddr2:4 val3:4
futimesat 326 dfd:4 filename:4 utimes:4
getcpu 345 cpup:4 nodep:4 unused:4
getcwd 183 buf:4 size:4
getdents 141 fd:4 dirent:4 count:4
getdents64 217 fd:4 dirent:4 count:4
getegid 202
getegid16 50
geteuid 201
geteuid16 49
getgid 200
getgid16 47
getgroups 205 gidsetsize:4 grouplist:4
getgroups16 80 gidsetsize:4 grouplist:4
getitimer 105 which:4 value:4
get_mempolicy 320 policy:4 nmask:4 maxnode:4 addr:4 flags:4
getpeername 287 fd:4 usockaddr:4 usockaddr_len:4
getpgid 132 pid:4
getpgrp 65
getpid 20
getppid 64
getpriority 96 which:4 who:4
getrandom 384 buf:4 count:4 flags:4
getresgid 211 rgidp:4 egidp:4 sgidp:4
getresgid16 171 rgidp:4 egidp:4 sgidp:4
getresuid 209 ruidp:4 euidp:4 suidp:4
getresuid16 165 ruidp:4 euidp:4 suidp:4
getrlimit 191 resource:4 rlim:4
get_robust_list 339 pid:4 head_ptr:4 len_ptr:4
getrusage 77 who:4 ru:4
getsid 147 pid:4
getsockname 286 fd:4 usockaddr:4 usockaddr_len:4
getsockopt 295 fd:4 level:4 optname:4 optval:4 optlen:4
gettid 224
gettimeofday 78 tv:4 tz:4
getuid 199
getuid16 24
getxattr 229 pathname:4 name:4 value:4 size:4
init_module 128 umod:4 len:4 uargs:4
inotify_add_watch 317 fd:4 pathname:4 mask:4
inotify_init 316
inotify_init1 360 flags:4
inotify_rm_watch 318 fd:4 wd:4
io_cancel 247 ctx_id:4 iocb:4 result:4
ioctl 54 fd:4 cmd:4 arg:4
io_destroy 244 ctx:4
io_getevents 245 ctx_id:4 min_nr:4 nr:4 events:4 timeout:4
ioprio_get 315 which:4 who:4
ioprio_set 314 which:4 who:4 ioprio:4
io_setup 243 nr_events:4 ctxp:4
io_submit 246 ctx_id:4 nr:4 iocbpp:4
ipc 117 call:4 first:4 second:4 third:4 ptr:4 fifth:4
kcmp 378 pid1:4 pid2:4 type:4 idx1:4 idx2:4
kexec_load 347 entry:4 nr_segments:4 segments:4 flags:4
keyctl 311 option:4 arg2:4 arg3:4 arg4:4 arg5:4
kill 37 pid:4 sig:4
lchown 198 filename:4 user:4 group:4
lchown16 16 filename:4 user:2 group:2
lgetxattr 230 pathname:4 name:4 value:4 size:4
link 9 oldname:4 newname:4
linkat 330 olddfd:4 oldname:4 newdfd:4 newname:4 flags:4
listen 284 fd:4 backlog:4
listxattr 232 pathname:4 list:4 size:4
llistxattr 233 pathname:4 list:4 size:4
llseek 140 fd:4 offset_high:4 offset_low:4 result:4 whence:4
lookup_dcookie 249 cookie64:8 buf:4 len:4
lremovexattr 236 pathname:4 name:4
lseek 19 fd:4 offset:4 whence:4
lsetxattr 227 pathname:4 name:4 value:4 size:4 flags:4
lstat64 196 filename:4 statbuf:4
madvise 220 start:4 len_in:4 behavior:4
mbind 319 start:4 len:4 mode:4 nmask:4 maxnode:4 flags:4
membarrier 389 cmd:4 flags:4
memfd_create 385 uname:4 flags:4
mincore 219 start:4 len:4 vec:4
mkdir 39 pathname:4 mode:2
mkdirat 323 dfd:4 pathname:4 mode:2
mknod 14 filename:4 mode:2 dev:4
mknodat 324 dfd:4 filename:4 mode:2 dev:4
mlock 150 start:4 len:4
mlock2 390 start:4 len:4 flags:4
mlockall 152 flags:4
mmap 90 addr:4 len:4 prot:4 flags:4 fd:4 offset:4
mmap2 192 addr:4 len:4 prot:4 flags:4 fd:4 pgoffset:4
mount 21 dev_name:4 dir_name:4 type:4 flags:4 data:4
move_pages 344 pid:4 nr_pages:4 pages:4 nodes:4 status:4 flags:4
mprotect 125 start:4 len:4 prot:4
mq_getsetattr 279 mqdes:4 u_mqstat:4 u_omqstat:4
mq_notify 278 mqdes:4 u_notification:4
mq_open 274 u_name:4 oflag:4 mode:2 u_attr:4
mq_timedreceive 277 mqdes:4 u_msg_ptr:4 msg_len:4 u_msg_prio:4 u_abs_timeout:4
mq_timedsend 276 mqdes:4 u_msg_ptr:4 msg_len:4 msg_prio:4 u_abs_timeout:4
mq_unlink 275 u_name:4
mremap 163 addr:4 old_len:4 new_len:4 flags:4 new_addr:4
msgctl 304 msqid:4 cmd:4 buf:4
msgget 303 key:4 msgflg:4
msgrcv 302 msqid:4 msgp:4 msgsz:4 msgtyp:4 msgflg:4
msgsnd 301 msqid:4 msgp:4 msgsz:4 msgflg:4
msync 144 start:4 len:4 flags:4
munlock 151 start:4 len:4
munlockall 153
munmap 91 addr:4 len:4
name_to_handle_at 370 dfd:4 name:4 handle:4 mnt_id:4 flag:4
nanosleep 162 rqtp:4 rmtp:4
newfstat 108 fd:4 statbuf:4
newlstat 107 filename:4 statbuf:4
newstat 106 filename:4 statbuf:4
newuname 122 name:4
nfsservctl 169 cmd:4 argp:4 resp:4
nice 34 increment:4
old_getrlimit 76 resource:4 rlim:4
old_oldumount 22 name:4
old_select 82 arg:4
open 5 filename:4 flags:4 mode:2
openat 322 dfd:4 filename:4 flags:4 mode:2
open_by_handle_at 371 mountdirfd:4 handle:4 flags:4
pause 29
pciconfig_iobase 271 which:4 bus:4 devfn:4
pciconfig_read 272 bus:4 dfn:4 off:4 len:4 buf:4
pciconfig_write 273 bus:4 dfn:4 off:4 len:4 buf:4
perf_event_open 364 attr_uptr:4 pid:4 cpu:4 group_fd:4 flags:4
personality 136 personality:4
pipe 42 fildes:4
pipe2 359 fildes:4 flags:4
pivot_root 218 new_root:4 put_old:4
poll 168 ufds:4 nfds:4 timeout_msecs:4
ppoll 336 ufds:4 nfds:4 tsp:4 sigmask:4 sigsetsize:4
prctl 172 option:4 arg2:4 arg3:4 arg4:4 arg5:4
pread64 180 fd:4 buf:4 count:4 pos:8
preadv 361 fd:4 vec:4 vlen:4 pos_l:4 pos_h:4
preadv2 392 fd:4 vec:4 vlen:4 pos_l:4 pos_h:4 flags:4
prlimit64 369 pid:4 resource:4 new_rlim:4 old_rlim:4
process_vm_readv 376 pid:4 lvec:4 liovcnt:4 rvec:4 riovcnt:4 flags:4
process_vm_writev 377 pid:4 lvec:4 liovcnt:4 rvec:4 riovcnt:4 flags:4
pselect6 335 n:4 inp:4 outp:4 exp:4 tsp:4 sig:4
ptrace 26 request:4 pid:4 addr:4 data:4
pwrite64 181 fd:4 buf:4 count:4 pos:8
pwritev 362 fd:4 vec:4 vlen:4 pos_l:4 pos_h:4
pwritev2 393 fd:4 vec:4 vlen:4 pos_l:4 pos_h:4 flags:4
quotactl 131 cmd:4 special:4 id:4 addr:4
read 3 fd:4 buf:4 count:4
readahead 225 fd:4 offset:8 count:4
readdir 89 fd:4 dirent:4 count:4
readlink 85 path:4 buf:4 bufsiz:4
readlinkat 332 dfd:4 pathname:4 buf:4 bufsiz:4
readv 145 fd:4 vec:4 vlen:4
reboot 88 magic1:4 magic2:4 cmd:4 arg:4
recv 291 fd:4 ubuf:4 size:4 flags:4
recvfrom 292 fd:4 ubuf:4 size:4 flags:4 addr:4 addr_len:4
recvmmsg 365 fd:4 mmsg:4 vlen:4 flags:4 timeout:4
recvmsg 297 fd:4 msg:4 flags:4
remap_file_pages 253 start:4 size:4 prot:4 pgoff:4 flags:4
removexattr 235 pathname:4 name:4
rename 38 oldname:4 newname:4
renameat 329 olddfd:4 oldname:4 newdfd:4 newname:4
renameat2 382 olddfd:4 oldname:4 newdfd:4 newname:4 flags:4
request_key 310 _type:4 _description:4 _callout_info:4 destringid:4
restart_syscall 0
rmdir 40 pathname:4
rt_sigaction 174 sig:4 act:4 oact:4 sigsetsize:4
rt_sigpending 176 uset:4 sigsetsize:4
rt_sigprocmask 175 how:4 nset:4 oset:4 sigsetsize:4
rt_sigqueueinfo 178 pid:4 sig:4 uinfo:4
rt_sigreturn 173
rt_sigsuspend 179 unewset:4 sigsetsize:4
rt_sigtimedwait 177 uthese:4 uinfo:4 uts:4 sigsetsize:4
rt_tgsigqueueinfo 363 tgid:4 pid:4 sig:4 uinfo:4
sched_getaffinity 242 pid:4 len:4 user_mask_ptr:4
sched_getattr 381 pid:4 uattr:4 size:4 flags:4
sched_getparam 155 pid:4 param:4
sched_get_priority_max 159 policy:4
sched_get_priority_min 160 policy:4
sched_getscheduler 157 pid:4
sched_rr_get_interval 161 pid:4 interval:4
sched_setaffinity 241 pid:4 len:4 user_mask_ptr:4
sched_setattr 380 pid:4 uattr:4 flags:4
sched_setparam 154 pid:4 param:4
sched_setscheduler 156 pid:4 policy:4 param:4
sched_yield 158
seccomp 383 op:4 flags:4 uargs:4
select 142 n:4 inp:4 outp:4 exp:4 tvp:4
semctl 300 semid:4 semnum:4 cmd:4 arg:4
semget 299 key:4 nsems:4 semflg:4
semop 298 semid:4 tsops:4 nsops:4
semtimedop 312 semid:4 tsops:4 nsops:4 timeout:4
send 289 fd:4 buff:4 len:4 flags:4
sendfile 187 out_fd:4 in_fd:4 offset:4 count:4
sendfile64 239 out_fd:4 in_fd:4 offset:4 count:4
sendmmsg 374 fd:4 mmsg:4 vlen:4 flags:4
sendmsg 296 fd:4 msg:4 flags:4
sendto 290 fd:4 buff:4 len:4 flags:4 addr:4 addr_len:4
setdomainname 121 name:4 len:4
setfsgid 216 gid:4
setfsgid16 139 gid:2
setfsuid 215 uid:4
setfsuid16 138 uid:2
setgid 214 gid:4
setgid16 46 gid:2
setgroups 206 gidsetsize:4 grouplist:4
setgroups16 81 gidsetsize:4 grouplist:4
sethostname 74 name:4 len:4
setitimer 104 which:4 value:4 ovalue:4
set_mempolicy 321 mode:4 nmask:4 maxnode:4
setns 375 fd:4 nstype:4
setpgid 57 pid:4 pgid:4
setpriority 97 which:4 who:4 niceval:4
setregid 204 rgid:4 egid:4
setregid16 71 rgid:2 egid:2
setresgid 210 rgid:4 egid:4 sgid:4
setresgid16 170 rgid:2 egid:2 sgid:2
setresuid 208 ruid:4 euid:4 suid:4
setresuid16 164 ruid:2 euid:2 suid:2
setreuid 203 ruid:4 euid:4
setreuid16 70 ruid:2 euid:2
setrlimit 75 resource:4 rlim:4
set_robust_list 338 head:4 len:4
setsid 66
setsockopt 294 fd:4 level:4 optname:4 optval:4 optlen:4
set_tid_address 256 tidptr:4
settimeofday 79 tv:4 tz:4
set_tls 983045 val:4
setuid 213 uid:4
setuid16 23 uid:2
setxattr 226 pathname:4 name:4 value:4 size:4 flags:4
shmat 305 shmid:4 shmaddr:4 shmflg:4
shmctl 308 shmid:4 cmd:4 buf:4
shmdt 306 shmaddr:4
shmget 307 key:4 size:4 shmflg:4
shutdown 293 fd:4 how:4
sigaction 67 sig:4 act:4 oact:4
sigaltstack 186 uss:4 uoss:4
signalfd 349 ufd:4 user_mask:4 sizemask:4
signalfd4 355 ufd:4 user_mask:4 sizemask:4 flags:4
sigpending 73 set:4
sigprocmask 126 how:4 nset:4 oset:4
sigreturn 119
sigsuspend 72 unused1:4 unused2:4 mask:4
socket 281 family:4 type:4 protocol:4
socketcall 102 call:4 args:4
socketpair 288 family:4 type:4 protocol:4 usockvec:4
splice 340 fd_in:4 off_in:4 fd_out:4 off_out:4 len:4 flags:4
stat64 195 filename:4 statbuf:4
statfs 99 pathname:4 buf:4
statfs64 266 path:4 sz:4 buf:4
stime 25 tptr:4
swapoff 115 specialfile:4
swapon 87 specialfile:4 swap_flags:4
symlink 83 oldname:4 newname:4
symlinkat 331 oldname:4 newdfd:4 newname:4
sync 36
sync_file_range2 341 fd:4 flags:4 offset:8 nbytes:8
syncfs 373 fd:4
syscall 113
sysctl 149 args:4
sysfs 135 option:4 arg1:4 arg2:4
sysinfo 116 info:4
syslog 103 type:4 buf:4 len:4
tee 342 fdin:4 fdout:4 len:4 flags:4
tgkill 268 tgid:4 pid:4 sig:4
time 13 tloc:4
timer_create 257 which_clock:4 timer_event_spec:4 created_timer_id:4
timer_delete 261 timer_id:4
timerfd_create 350 clockid:4 flags:4
timerfd_gettime 354 ufd:4 otmr:4
timerfd_settime 353 ufd:4 flags:4 utmr:4 otmr:4
timer_getoverrun 260 timer_id:4
timer_gettime 259 timer_id:4 setting:4
timer_settime 258 timer_id:4 flags:4 new_setting:4 old_setting:4
times 43 tbuf:4
tkill 238 pid:4 sig:4
truncate 92 path:4 length:4
truncate64 193 path:4 length:8
umask 60 mask:4
umount 52 name:4 flags:4
unlink 10 pathname:4
unlinkat 328 dfd:4 pathname:4 flag:4
unshare 337 unshare_flags:4
uselib 86 library:4
userfaultfd 388 flags:4
usr26 983043
usr32 983044
ustat 62 dev:4 ubuf:4
utime 30 filename:4 times:4
utimensat 348 dfd:4 filename:4 utimes:4 flags:4
utimes 269 filename:4 utimes:4
vfork 190
vhangup 111
vmsplice 343 fd:4 iov:4 nr_segs:4 flags:4
vserver 313
wait4 114 upid:4 stat_addr:4 options:4 ru:4
waitid 280 which:4 upid:4 infop:4 options:4 ru:4
write 4 fd:4 buf:4 count:4
writev 146 fd:4 vec:4 vlen:4
`

// tableRISCV64 is Kafel's riscv64 list (320 syscalls).
const tableRISCV64 = `accept 202 fd:4 upeer_sockaddr:8 upeer_addrlen:8
accept4 242 fd:4 upeer_sockaddr:8 upeer_addrlen:8 flags:4
acct 89 name:8
add_key 217 _type:8 _description:8 _payload:8 plen:8 ringid:4
adjtimex 171 txc_p:8
bind 200 fd:4 umyaddr:8 addrlen:4
bpf 280 cmd:4 uattr:8 size:4
brk 214 brk:8
cachestat 451 fd:4 cstat_range:8 cstat:8 flags:4
capget 90 header:8 dataptr:8
capset 91 header:8 data:8
chdir 49 filename:8
chroot 51 filename:8
clock_adjtime 266 which_clock:4 utx:8
clock_getres 114 which_clock:4 tp:8
clock_gettime 113 which_clock:4 tp:8
clock_nanosleep 115 which_clock:4 flags:4 rqtp:8 rmtp:8
clock_settime 112 which_clock:4 tp:8
clone 220 clone_flags:8 newsp:8 parent_tidptr:8 child_tidptr:8 tls:8
clone3 435 uargs:8 size:8
close 57 fd:4
close_range 436 fd:4 max_fd:4 flags:4
connect 203 fd:4 uservaddr:8 addrlen:4
copy_file_range 285 fd_in:4 off_in:8 fd_out:4 off_out:8 len:8 flags:4
delete_module 106 name_user:8 flags:4
dup 23 fildes:4
dup3 24 oldfd:4 newfd:4 flags:4
epoll_create1 20 flags:4
epoll_ctl 21 epfd:4 op:4 fd:4 event:8
epoll_pwait 22 epfd:4 events:8 maxevents:4 timeout:4 sigmask:8 sigsetsize:8
epoll_pwait2 441 epfd:4 events:8 maxevents:4 timeout:8 sigmask:8 sigsetsize:8
eventfd2 19 count:4 flags:4
execve 221 filename:8 argv:8 envp:8
execveat 281 fd:4 filename:8 argv:8 envp:8 flags:4
exit 93 error_code:4
exit_group 94 error_code:4
faccessat 48 dfd:4 filename:8 mode:4
faccessat2 439 dfd:4 filename:8 mode:4 flags:4
fadvise64 223 fd:4 offset:8 len:8 advice:4
fallocate 47 fd:4 mode:4 offset:8 len:8
fanotify_init 262 flags:4 event_f_flags:4
fanotify_mark 263 fanotify_fd:4 flags:4 mask:8 dfd:4 pathname:8
fchdir 50 fd:4
fchmod 52 fd:4 mode:2
fchmodat 53 dfd:4 filename:8 mode:2
fchmodat2 452 dfd:4 filename:8 mode:2 flags:4
fchown 55 fd:4 user:4 group:4
fchownat 54 dfd:4 filename:8 user:4 group:4 flags:4
fcntl 25 fd:4 cmd:4 arg:8
fdatasync 83 fd:4
fgetxattr 10 fd:4 name:8 value:8 size:8
file_getattr 468 dfd:4 pathname:8 fileattr:8 flags:4
file_setattr 469 dfd:4 pathname:8 fileattr:8 flags:4
finit_module 273 fd:4 uargs:8 flags:4
flistxattr 13 fd:4 list:8 size:8
flock 32 fd:4 cmd:4
fremovexattr 16 fd:4 name:8
fsconfig 431 fd:4 cmd:4 key:8 value:8 aux:4
fsmount 432 fs_fd:4 flags:4 attr_flags:4
fsopen 430 fs_name:8 flags:4
fspick 433 dfd:4 path:8 flags:4
fsetxattr 7 fd:4 name:8 value:8 size:8 flags:4
fstatfs 44 fd:4 buf:8
fsync 82 fd:4
ftruncate 46 fd:4 length:8
futex 98 uaddr:8 op:4 val:4 utime:8 uaddr2:8 val3:4
futex_requeue 456 uaddr:8 nr_wake:4 nr_requeue:4 uaddr2:8 flags:4
futex_wait 455 uaddr:8 val:4 flags:4 timeout:8
futex_waitv 449 waiters:8 nr_futexes:4 flags:4 timeout:8 clockid:4
futex_wake 454 uaddr:8 nr_wake:4 flags_or_mask:4
getcpu 168 cpup:8 nodep:8 unused:8
getcwd 17 buf:8 size:8
getdents64 61 fd:4 dirent:8 count:4
getegid 177
geteuid 175
getgid 176
getgroups 158 gidsetsize:4 grouplist:8
getitimer 102 which:4 value:8
get_mempolicy 236 policy:8 nmask:8 maxnode:8 addr:8 flags:8
getpeername 205 fd:4 usockaddr:8 usockaddr_len:8
getpgid 155 pid:4
getpid 172
getppid 173
getpriority 141 which:4 who:4
getrandom 278 buf:8 count:8 flags:4
getresgid 150 rgidp:8 egidp:8 sgidp:8
getresuid 148 ruidp:8 euidp:8 suidp:8
getrlimit 163 resource:4 rlim:8
get_robust_list 100 pid:4 head_ptr:8 len_ptr:8
getrusage 165 who:4 ru:8
getsid 156 pid:4
getsockname 204 fd:4 usockaddr:8 usockaddr_len:8
getsockopt 209 fd:4 level:4 optname:4 optval:8 optlen:8
gettid 178
gettimeofday 169 tv:8 tz:8
getuid 174
getxattr 8 pathname:8 name:8 value:8 size:8
getxattrat 464 dfd:4 pathname:8 name:8 value:8 size:8
init_module 105 umod:8 len:8 uargs:8
inotify_add_watch 27 fd:4 pathname:8 mask:4
inotify_init1 26 flags:4
inotify_rm_watch 28 fd:4 wd:4
io_cancel 3 ctx_id:8 iocb:8 result:8
ioctl 29 fd:4 cmd:4 arg:8
io_destroy 1 ctx:8
io_getevents 4 ctx_id:8 min_nr:8 nr:8 events:8 timeout:8
io_uring_enter 426 fd:4 to_submit:4 min_complete:4 flags:4 argp:8 argsz:8
io_uring_register 427 fd:4 opcode:4 arg:8 nr_args:4
io_uring_setup 425 entries:4 params:8
ioprio_get 31 which:4 who:4
ioprio_set 30 which:4 who:4 ioprio:4
io_setup 0 nr_events:4 ctxp:8
io_submit 2 ctx_id:8 nr:8 iocbpp:8
kcmp 272 pid1:4 pid2:4 type:4 idx1:8 idx2:8
kexec_file_load 294 kernel_fd:4 initrd_fd:4 cmdline_len:8 cmdline_ptr:8 flags:8
kexec_load 104 entry:8 nr_segments:8 segments:8 flags:8
keyctl 219 option:4 arg2:8 arg3:8 arg4:8 arg5:8
kill 129 pid:4 sig:4
landlock_add_rule 445 ruleset_fd:4 rule_type:4 rule_attr:8 flags:4
landlock_create_ruleset 444 attr:8 size:8 flags:4
landlock_restrict_self 446 ruleset_fd:4 flags:4
lgetxattr 9 pathname:8 name:8 value:8 size:8
linkat 37 olddfd:4 oldname:8 newdfd:4 newname:8 flags:4
listen 201 fd:4 backlog:4
listmount 458 req:8 reqlen:8 buf:8 bufsize:8 flags:4
listxattr 11 pathname:8 list:8 size:8
listxattrat 465 dfd:4 pathname:8 list:8 size:8
llistxattr 12 pathname:8 list:8 size:8
lookup_dcookie 18 cookie64:8 buf:8 len:8
lremovexattr 15 pathname:8 name:8
lseek 62 fd:4 offset:8 whence:4
lsetxattr 6 pathname:8 name:8 value:8 size:8 flags:4
lsm_get_self_attr 459 attr:4 ctx:8 size_ptr:8 flags:4
lsm_list_modules 461 ids:8 size_ptr:8 flags:4
lsm_set_self_attr 460 attr:4 ctx:8 size:8 flags:4
madvise 233 start:8 len_in:8 behavior:4
map_shadow_stack 453 addr:8 size:8 flags:4
mbind 235 start:8 len:8 mode:8 nmask:8 maxnode:8 flags:4
membarrier 283 cmd:4 flags:4
memfd_create 279 uname:8 flags:4
memfd_secret 447 flags:4
migrate_pages 238 pid:4 maxnode:8 old_nodes:8 new_nodes:8
mincore 232 start:8 len:8 vec:8
mkdirat 34 dfd:4 pathname:8 mode:2
mknodat 33 dfd:4 filename:8 mode:2 dev:4
mlock 228 start:8 len:8
mlock2 284 start:8 len:8 flags:4
mlockall 230 flags:4
mmap 222 addr:8 len:8 prot:8 flags:8 fd:8 off:8
mount 40 dev_name:8 dir_name:8 type:8 flags:8 data:8
mount_setattr 442 dfd:4 path:8 flags:4 uattr:8 usize:8
move_mount 429 from_dfd:4 from_pathname:8 to_dfd:4 to_pathname:8 flags:4
move_pages 239 pid:4 nr_pages:8 pages:8 nodes:8 status:8 flags:4
mprotect 226 start:8 len:8 prot:8
mq_getsetattr 185 mqdes:4 u_mqstat:8 u_omqstat:8
mq_notify 184 mqdes:4 u_notification:8
mq_open 180 u_name:8 oflag:4 mode:2 u_attr:8
mq_timedreceive 183 mqdes:4 u_msg_ptr:8 msg_len:8 u_msg_prio:8 u_abs_timeout:8
mq_timedsend 182 mqdes:4 u_msg_ptr:8 msg_len:8 msg_prio:4 u_abs_timeout:8
mq_unlink 181 u_name:8
mremap 216 addr:8 old_len:8 new_len:8 flags:8 new_addr:8
mseal 462 start:8 size:8 flags:4
msgctl 187 msqid:4 cmd:4 buf:8
msgget 186 key:4 msgflg:4
msgrcv 188 msqid:4 msgp:8 msgsz:8 msgtyp:8 msgflg:4
msgsnd 189 msqid:4 msgp:8 msgsz:8 msgflg:4
msync 227 start:8 len:8 flags:4
munlock 229 start:8 len:8
munlockall 231
munmap 215 addr:8 len:8
name_to_handle_at 264 dfd:4 name:8 handle:8 mnt_id:8 flag:4
nanosleep 101 rqtp:8 rmtp:8
newfstat 80 fd:4 statbuf:8
newfstatat 79 dfd:4 filename:8 statbuf:8 flag:4
newuname 160 name:8
nfsservctl 42 cmd:4 argp:8 resp:8
openat 56 dfd:4 filename:8 flags:4 mode:2
openat2 437 dfd:4 filename:8 how:8 size:8
open_by_handle_at 265 mountdirfd:4 handle:8 flags:4
open_tree 428 dfd:4 filename:8 flags:4
open_tree_attr 467 dfd:4 pathname:8 flags:4 attr:8 size:8
perf_event_open 241 attr_uptr:8 pid:4 cpu:4 group_fd:4 flags:8
personality 92 personality:4
pidfd_getfd 438 pidfd:4 fd:4 flags:4
pidfd_open 434 pid:4 flags:4
pidfd_send_signal 424 pidfd:4 sig:4 info:8 flags:4
pipe2 59 fildes:8 flags:4
pivot_root 41 new_root:8 put_old:8
ppoll 73 ufds:8 nfds:4 tsp:8 sigmask:8 sigsetsize:8
prctl 167 option:4 arg2:8 arg3:8 arg4:8 arg5:8
pread64 67 fd:4 buf:8 count:8 pos:8
preadv 69 fd:8 vec:8 vlen:8 pos_l:8 pos_h:8
preadv2 286 fd:8 vec:8 vlen:8 pos_l:8 pos_h:8 flags:4
prlimit64 261 pid:4 resource:4 new_rlim:8 old_rlim:8
process_madvise 440 pidfd:4 vec:8 vlen:8 behavior:4 flags:4
process_mrelease 448 pidfd:4 flags:4
process_vm_readv 270 pid:4 lvec:8 liovcnt:8 rvec:8 riovcnt:8 flags:8
process_vm_writev 271 pid:4 lvec:8 liovcnt:8 rvec:8 riovcnt:8 flags:8
pselect6 72 n:4 inp:8 outp:8 exp:8 tsp:8 sig:8
ptrace 117 request:8 pid:8 addr:8 data:8
pwrite64 68 fd:4 buf:8 count:8 pos:8
pwritev 70 fd:8 vec:8 vlen:8 pos_l:8 pos_h:8
pwritev2 287 fd:8 vec:8 vlen:8 pos_l:8 pos_h:8 flags:4
quotactl 60 cmd:4 special:8 id:4 addr:8
quotactl_fd 443 fd:4 cmd:4 id:4 addr:8
read 63 fd:4 buf:8 count:8
readahead 213 fd:4 offset:8 count:8
readlinkat 78 dfd:4 pathname:8 buf:8 bufsiz:4
readv 65 fd:8 vec:8 vlen:8
reboot 142 magic1:4 magic2:4 cmd:4 arg:8
recvfrom 207 fd:4 ubuf:8 size:8 flags:4 addr:8 addr_len:8
recvmmsg 243 fd:4 mmsg:8 vlen:4 flags:4 timeout:8
recvmsg 212 fd:4 msg:8 flags:4
remap_file_pages 234 start:8 size:8 prot:8 pgoff:8 flags:8
removexattr 14 pathname:8 name:8
removexattrat 466 dfd:4 pathname:8 name:8
renameat2 276 olddfd:4 oldname:8 newdfd:4 newname:8 flags:4
request_key 218 _type:8 _description:8 _callout_info:8 destringid:4
restart_syscall 128
rseq 293 rseq:8 rseq_len:4 flags:4 sig:4
rt_sigaction 134 sig:4 act:8 oact:8 sigsetsize:8
rt_sigpending 136 uset:8 sigsetsize:8
rt_sigprocmask 135 how:4 nset:8 oset:8 sigsetsize:8
rt_sigqueueinfo 138 pid:4 sig:4 uinfo:8
rt_sigreturn 139
rt_sigsuspend 133 unewset:8 sigsetsize:8
rt_sigtimedwait 137 uthese:8 uinfo:8 uts:8 sigsetsize:8
rt_tgsigqueueinfo 240 tgid:4 pid:4 sig:4 uinfo:8
sched_getaffinity 123 pid:4 len:4 user_mask_ptr:8
sched_getattr 275 pid:4 uattr:8 size:4 flags:4
sched_getparam 121 pid:4 param:8
sched_get_priority_max 125 policy:4
sched_get_priority_min 126 policy:4
sched_getscheduler 120 pid:4
sched_rr_get_interval 127 pid:4 interval:8
sched_setaffinity 122 pid:4 len:4 user_mask_ptr:8
sched_setattr 274 pid:4 uattr:8 flags:4
sched_setparam 118 pid:4 param:8
sched_setscheduler 119 pid:4 policy:4 param:8
sched_yield 124
seccomp 277 op:4 flags:4 uargs:8
semctl 191 semid:4 semnum:4 cmd:4 arg:8
semget 190 key:4 nsems:4 semflg:4
semop 193 semid:4 tsops:8 nsops:4
semtimedop 192 semid:4 tsops:8 nsops:4 timeout:8
sendfile 71 out_fd:4 in_fd:4 offset:8 count:8
sendmmsg 269 fd:4 mmsg:8 vlen:4 flags:4
sendmsg 211 fd:4 msg:8 flags:4
sendto 206 fd:4 buff:8 len:8 flags:4 addr:8 addr_len:4
setdomainname 162 name:8 len:4
setfsgid 152 gid:4
setfsuid 151 uid:4
setgid 144 gid:4
setgroups 159 gidsetsize:4 grouplist:8
sethostname 161 name:8 len:4
setitimer 103 which:4 value:8 ovalue:8
set_mempolicy 237 mode:4 nmask:8 maxnode:8
set_mempolicy_home_node 450 start:8 len:8 home_node:4 flags:4
setns 268 fd:4 nstype:4
setpgid 154 pid:4 pgid:4
setpriority 140 which:4 who:4 niceval:4
setregid 143 rgid:4 egid:4
setresgid 149 rgid:4 egid:4 sgid:4
setresuid 147 ruid:4 euid:4 suid:4
setreuid 145 ruid:4 euid:4
setrlimit 164 resource:4 rlim:8
set_robust_list 99 head:8 len:8
setsid 157
setsockopt 208 fd:4 level:4 optname:4 optval:8 optlen:4
set_tid_address 96 tidptr:8
settimeofday 170 tv:8 tz:8
setuid 146 uid:4
setxattr 5 pathname:8 name:8 value:8 size:8 flags:4
setxattrat 463 dfd:4 pathname:8 name:8 value:8 size:8 flags:4
shmat 196 shmid:4 shmaddr:8 shmflg:4
shmctl 195 shmid:4 cmd:4 buf:8
shmdt 197 shmaddr:8
shmget 194 key:4 size:8 shmflg:4
shutdown 210 fd:4 how:4
sigaltstack 132 uss:8 uoss:8
signalfd4 74 ufd:4 user_mask:8 sizemask:8 flags:4
socket 198 family:4 type:4 protocol:4
socketpair 199 family:4 type:4 protocol:4 usockvec:8
splice 76 fd_in:4 off_in:8 fd_out:4 off_out:8 len:8 flags:4
statfs 43 pathname:8 buf:8
statmount 457 req:8 reqlen:8 smbuf:8 buflen:8 flags:4
statx 291 dfd:4 filename:8 flags:4 mask:4 statxbuf:8
swapoff 225 specialfile:8
swapon 224 specialfile:8 swap_flags:4
symlinkat 36 oldname:8 newdfd:4 newname:8
sync 81
sync_file_range2 84 fd:4 offset:8 nbytes:8 flags:4
syncfs 267 fd:4
sysinfo 179 info:8
syslog 116 type:4 buf:8 len:4
tee 77 fdin:4 fdout:4 len:8 flags:4
tgkill 131 tgid:4 pid:4 sig:4
timer_create 107 which_clock:4 timer_event_spec:8 created_timer_id:8
timer_delete 111 timer_id:4
timerfd_create 85 clockid:4 flags:4
timerfd_gettime 87 ufd:4 otmr:8
timerfd_settime 86 ufd:4 flags:4 utmr:8 otmr:8
timer_getoverrun 109 timer_id:4
timer_gettime 108 timer_id:4 setting:8
timer_settime 110 timer_id:4 flags:4 new_setting:8 old_setting:8
times 153 tbuf:8
tkill 130 pid:4 sig:4
truncate 45 path:8 length:8
umask 166 mask:4
umount 39 name:8 flags:4
unlinkat 35 dfd:4 pathname:8 flags:4
unshare 97 unshare_flags:8
userfaultfd 282 flags:4
utimensat 88 dfd:4 filename:8 utimes:8 flags:4
vhangup 58
vmsplice 75 fd:4 iov:8 nr_segs:8 flags:4
wait4 260 upid:4 stat_addr:8 options:4 ru:8
waitid 95 which:4 upid:4 infop:8 options:4 ru:8
write 64 fd:4 buf:8 count:8
writev 66 fd:8 vec:8 vlen:8
`
