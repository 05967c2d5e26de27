package pinglog

import (
	"os"
	"reflect"
	"testing"
	"time"
)

func TestParsePing(t *testing.T) {
	f, err := os.Open("testdata/ms0.busy")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, err := Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	want := []Reply{
		{At: time.Unix(1796154399, 312345000), Seq: 1, RTT: 62300 * time.Microsecond},
		{At: time.Unix(1796154399, 811000000), Seq: 2, RTT: 61 * time.Millisecond},
		{At: time.Unix(1796154400, 590000000), Seq: 3, RTT: 340 * time.Millisecond},
		{At: time.Unix(1796154403, 250000000), Seq: 5, RTT: 2000 * time.Millisecond},
		{At: time.Unix(1796154403, 600000000), Seq: 6, RTT: 1850 * time.Millisecond},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Parse:\n got %v\nwant %v", got, want)
	}
}
