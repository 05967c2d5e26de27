// Command sgsnemu runs the SGSN emulator on UDP for demos and manual tests:
//
//	go run ./cmd/sgsnemu -listen 127.0.0.1:23000 -echo
//
// It answers NS (classic and IP-SNS) and the BVC procedures of any PCU and,
// with -echo, sends every UL-UNITDATA LLC PDU back to the same TLLI as
// DL-UNITDATA (a traffic source that needs no core network).
package main

import (
	"flag"
	"fmt"
	"log/slog"
	"net/netip"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/gopcu/gopcu/bssgp"
	"github.com/gopcu/gopcu/internal/emu/sgsnemu"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:23000", "NS UDP address of the SGSN")
	echo := flag.Bool("echo", false, "send each UL LLC PDU back as DL-UNITDATA to the same TLLI")
	lifetime := flag.Uint("lifetime", 1000, "DL-UNITDATA PDU lifetime in centiseconds")
	flag.Parse()
	addr, err := netip.ParseAddrPort(*listen)
	if err != nil {
		fmt.Fprintln(os.Stderr, "sgsnemu:", err)
		os.Exit(2)
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	cb := sgsnemu.Callbacks{
		ULUnitdata: func(bvci uint16, ul *bssgp.ULUnitdata, now time.Duration) {
			log.Info("UL-UNITDATA", "bvci", bvci, "tlli", fmt.Sprintf("%08x", ul.TLLI), "octets", len(ul.LLC))
		},
		PDU: func(bvci uint16, p bssgp.PDU, now time.Duration) {
			log.Info("rx", "bvci", bvci, "pdu", p.Type().String())
		},
		BVCState: func(bvci uint16, up bool, now time.Duration) {
			log.Info("BVC state", "bvci", bvci, "unblocked", up)
		},
	}
	srv, err := sgsnemu.Listen(addr, sgsnemu.Config{Listen: addr, DLLifetime: uint16(*lifetime), Echo: *echo}, cb)
	if err != nil {
		fmt.Fprintln(os.Stderr, "sgsnemu:", err)
		os.Exit(1)
	}
	log.Info("SGSN emulator listening", "addr", srv.Addr().String())
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	<-sig
	srv.Close()
}
