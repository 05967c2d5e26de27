package config

import "testing"

// Logging categories enabled/disabled per target, against osmo-pcu 1.1.0
// (testdata/logging-script.txt; -update records the transcript again).
const (
	logScriptFile = "testdata/logging-script.txt"
	logRefFile    = "testdata/osmo-pcu-1.1.0-logging.transcript"
)

func TestLoggingTranscriptAgainstRecordedOsmoPCU(t *testing.T) {
	script := loadScriptFile(t, logScriptFile)
	if *update {
		recordLiveFile(t, script, logScriptFile, logRefFile)
	}
	compareSteps(t, readTranscriptFile(t, logRefFile), runOurs(t, script))
}

func TestLoggingTranscriptLive(t *testing.T) {
	if testing.Short() {
		t.Skip("needs a run without -short (long test)")
	}
	script := loadScriptFile(t, logScriptFile)
	ours := runOurs(t, script)
	compareSteps(t, liveTranscript(t, script, ours), ours)
}
