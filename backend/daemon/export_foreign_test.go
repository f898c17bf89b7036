package daemon

// LeaveSocketBehind closes a daemon's listener without removing its socket
// file, as a killed daemon leaves it, and retires the daemon.
func LeaveSocketBehind(d *Daemon) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.ln != nil {
		d.ln.ln.SetUnlinkOnClose(false)
		d.ln.ln.Close()
		d.ln = nil
	}
	d.finished = true
}
