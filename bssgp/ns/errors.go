package ns

import (
	"errors"
	"fmt"
)

// Error is a decode error. Cause is the NS cause a receiver puts into the
// NS-STATUS it answers with (TS 48.016 §7.5 / §10.3.2).
type Error struct {
	Cause  Cause
	Type   PDUType // PDU type being decoded (0 when the PDU is empty)
	IE     IEI     // offending IE, when HasIE
	HasIE  bool
	Offset int // byte offset into the PDU where decoding stopped
	Reason string
}

func (e *Error) Error() string {
	if e.HasIE {
		return fmt.Sprintf("ns: %s: IE 0x%02x at %d: %s (cause: %s)", e.Type, uint8(e.IE), e.Offset, e.Reason, e.Cause)
	}
	return fmt.Sprintf("ns: %s at %d: %s (cause: %s)", e.Type, e.Offset, e.Reason, e.Cause)
}

// Is makes errors.Is(err, ErrX) match on the cause of sentinel errors.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Reason == "" && t.Cause == e.Cause
}

// Sentinels to test a decode error's cause with errors.Is.
var (
	ErrMissingEssentialIE = &Error{Cause: CauseMissingEssentialIE}
	ErrInvalidEssentialIE = &Error{Cause: CauseInvalidEssentialIE}
	ErrProtocolError      = &Error{Cause: CauseProtocolErrorUnspec}
)

// ErrShortBuffer is returned by MarshalTo when the buffer is too small.
var ErrShortBuffer = errors.New("ns: buffer too short")

// CauseOf returns the NS cause carried by err and true if err is an *Error.
func CauseOf(err error) (Cause, bool) {
	var e *Error
	if errors.As(err, &e) {
		return e.Cause, true
	}
	return 0, false
}
