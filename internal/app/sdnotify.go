package app

import (
	"net"
	"os"
)

// sdNotify sends a state line ("READY=1", "STOPPING=1", "RELOADING=1") to
// the service manager when it asked for one: systemd's sd_notify protocol
// (sd_notify(3): a datagram on the AF_UNIX socket named by $NOTIFY_SOCKET,
// '@' standing for the abstract namespace). Without $NOTIFY_SOCKET it does
// nothing; errors are returned for the log only. gopcu.service is
// Type=notify: systemd counts gopcu as started once the VTY listens.
func sdNotify(state string) error {
	path := os.Getenv("NOTIFY_SOCKET")
	if path == "" {
		return nil
	}
	if path[0] == '@' {
		path = "\x00" + path[1:]
	}
	c, err := net.DialUnix("unixgram", nil, &net.UnixAddr{Name: path, Net: "unixgram"})
	if err != nil {
		return err
	}
	defer c.Close()
	_, err = c.Write([]byte(state))
	return err
}
