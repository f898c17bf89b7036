package hostclient

// Check reads host.json afresh, without sending anything: nil when it
// names a host (which may still not answer), ErrNotRunning when there is
// none, *HostFileError when it cannot be used. A command calls it to say
// "not running" before doing anything; requests read host.json
// themselves. A client of NewLocal always has its host.
func (c *Client) Check() error {
	_, err := c.hostInfo(true)
	return err
}
