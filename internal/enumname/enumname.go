// Package enumname prints the values of the one-octet protocol
// enumerations (PDU and message types, causes, categories, modes): the
// name their table gives, or the number in the type's own fallback format
// for a value the table does not know.
package enumname

import "fmt"

// String is names[v], or format with the value (uint8) when names has no
// entry for v.
func String[T ~uint8](names map[T]string, v T, format string) string {
	if s, ok := names[v]; ok {
		return s
	}
	return fmt.Sprintf(format, uint8(v))
}
