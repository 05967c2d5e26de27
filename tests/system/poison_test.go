package system

import "github.com/gopcu/gopcu/internal/poison"

// The system tests check the DL frames the emulated MSs reassemble with
// poisoned releases of pooled buffers (NS datagrams, LLC frames): a buffer
// given back while the PCU still uses it shows as 0xAA octets.
func init() { poison.Enable() }
