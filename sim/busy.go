package sim

// Busy reports whether a monitor holds the VM's one JDWP connection (tests
// wait for it to be released before connecting again, as a VM refuses a
// second connection).
func (vm *VM) Busy() bool {
	vm.mu.Lock()
	defer vm.mu.Unlock()
	return vm.conn != nil
}
