package main

import (
	"bytes"
	"image/png"
	"reflect"
	"testing"
	"time"
)

func TestLoadRunSeries(t *testing.T) {
	run, err := LoadRun("x", "testdata/run")
	if err != nil {
		t.Fatal(err)
	}
	if len(run.MS) != 1 || run.MS[0].Name != "ms0" {
		t.Fatalf("MSs: %+v", run.MS)
	}
	m := run.MS[0]
	if want := 24300*time.Millisecond + time.Nanosecond; m.Download != want {
		t.Errorf("download %v, want %v", m.Download, want)
	}
	// each ping at its send time (reply time less RTT) after the download's start
	want := []Point{
		{Seq: 1, T: -999955 * time.Microsecond, RTT: 62300 * time.Microsecond},
		{Seq: 2, T: -500 * time.Millisecond, RTT: 61 * time.Millisecond},
		{Seq: 3, T: 0, RTT: 340 * time.Millisecond},
		{Seq: 5, T: time.Second, RTT: 2000 * time.Millisecond},
		{Seq: 6, T: 1500 * time.Millisecond, RTT: 1850 * time.Millisecond},
	}
	if !reflect.DeepEqual(m.Points, want) {
		t.Fatalf("series:\n got %v\nwant %v", m.Points, want)
	}
}

func TestParseDownloadNoStart(t *testing.T) {
	if _, err := ParseDownload(bytes.NewBufferString("end 1796154424.5\n")); err == nil {
		t.Fatal("no error for a .dl without start")
	}
}

func TestPlot(t *testing.T) {
	run, err := LoadRun("x", "testdata/run")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := Plot(&b, "t", []Run{run, run}); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&b)
	if err != nil {
		t.Fatal(err)
	}
	if w := img.Bounds().Dx(); w != 1000 {
		t.Errorf("width %d", w)
	}
}

func TestQueueSeries(t *testing.T) {
	run, err := LoadRun("x", "testdata/run")
	if err != nil {
		t.Fatal(err)
	}
	// the download started at 1796154400.25: 4 frames of 0.5 s mean by
	// 1 s, none in the next second, 2 of 3 s mean by 3 s
	want := []Point{
		{Seq: 1, T: time.Second, RTT: 500 * time.Millisecond},
		{Seq: 3, T: 3 * time.Second, RTT: 3 * time.Second},
	}
	if !reflect.DeepEqual(run.Queue, want) {
		t.Fatalf("queue series:\n got %v\nwant %v", run.Queue, want)
	}
	var b bytes.Buffer
	if err := Plot(&b, "t", []Run{run}); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&b)
	if err != nil {
		t.Fatal(err)
	}
	// title and one legend line, then the ping panel and the queue panel
	if h, want := img.Bounds().Dy(), 40+20+2*(260+60); h != want {
		t.Errorf("height %d, want %d (two panels)", h, want)
	}
}
