package bssgp

import (
	"errors"
	"fmt"
)

// Error is a BSSGP decode or procedure error. Cause is what goes into the
// STATUS PDU answering the offending PDU (TS 48.018 §8.7, §11.3.8).
type Error struct {
	Cause  Cause
	Type   PDUType
	IE     IEI
	HasIE  bool
	Offset int
	Reason string
}

func (e *Error) Error() string {
	if e.HasIE {
		return fmt.Sprintf("bssgp: %s: IE 0x%02x at %d: %s (cause: %s)", e.Type, uint8(e.IE), e.Offset, e.Reason, e.Cause)
	}
	return fmt.Sprintf("bssgp: %s at %d: %s (cause: %s)", e.Type, e.Offset, e.Reason, e.Cause)
}

// Is matches sentinel errors (Reason == "") by cause.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Reason == "" && t.Cause == e.Cause
}

// Sentinels for errors.Is.
var (
	ErrInvalidMandatoryInfo = &Error{Cause: CauseInvalidMandatoryInfo}
	ErrMissingMandatoryIE   = &Error{Cause: CauseMissingMandatoryIE}
	ErrConditionalIEError   = &Error{Cause: CauseConditionalIEError}
	ErrProtocolError        = &Error{Cause: CauseProtocolErrorUnspec}
)

// ErrShortBuffer is returned by MarshalTo when b is too small.
var ErrShortBuffer = errors.New("bssgp: buffer too short")

// CauseOf returns the BSSGP cause carried by err.
func CauseOf(err error) (Cause, bool) {
	var e *Error
	if errors.As(err, &e) {
		return e.Cause, true
	}
	return 0, false
}
