package pcu_test

import (
	"fmt"
	"time"

	"github.com/gopcu/gopcu/pcu"
	"github.com/gopcu/gopcu/pcu/pcuif"
)

// btsLog is a BTSWriter that records what the engine sends.
type btsLog struct{ sent []string }

func (w *btsLog) Write(b []byte) error {
	t, _, err := pcuif.PeekHeader(b)
	if err != nil {
		return err
	}
	w.sent = append(w.sent, t.String())
	return nil
}

// The engine without a driver: the caller is the engine goroutine, hands
// it the BTS's messages and reads its answers from the BTSWriter
// (pcu/driver does the same over the PCU socket).
func Example() {
	e := pcu.New(pcu.Config{})
	w := &btsLog{}
	e.BTSConnected(w) // announces the PCU version (TXT_IND)

	ii := &pcuif.InfoInd{Version: pcuif.V12, Flags: pcuif.FlagActive | pcuif.FlagCS(1), InitialCS: 1}
	ii.TRX[0].ARFCN, ii.TRX[0].PDCHMask = 871, 0x03
	b, _ := pcuif.Marshal(ii, pcuif.V12)
	e.HandlePCUIF(b) // activates PDCH 0 and 1 (ACT_REQ)

	rts := &pcuif.RTSReq{SAPI: pcuif.SAPIPDTCH, FN: 0, ARFCN: 871, TS: 0}
	b, _ = pcuif.Marshal(rts, pcuif.V12)
	e.HandlePCUIF(b) // answered at once (DATA_REQ, idle here)

	e.Tick(time.Second) // timers; the driver calls it again at e.NextDeadline()
	fmt.Println(w.sent)
	// Output: [TXT_IND ACT_REQ ACT_REQ DATA_REQ]
}
