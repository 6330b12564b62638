package testjvm

import "syscall"

var syscallZero = syscall.Signal(0)
