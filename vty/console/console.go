// Package console attaches an interactive VTY console to a terminal with
// github.com/chzyer/readline (history, TAB completion and '?' help from
// the same command tree as the telnet VTY). It is for a local operator
// only; the telnet VTY keeps libosmocore's byte format (see vty.Server).
package console

import (
	"errors"
	"io"
	"strings"

	"github.com/chzyer/readline"

	"github.com/gopcu/gopcu/vty"
)

// Config says where the console reads and writes.
type Config struct {
	In          io.ReadCloser // default: the process stdin
	Out         io.Writer     // default: the process stdout
	HistoryFile string
	// NotTerminal makes readline treat In/Out as a terminal without
	// touching the process terminal (tests, pipes).
	NotTerminal bool
}

type completer struct{ s *vty.Session }

// Do implements readline.AutoCompleter: suffixes of the candidates for
// the word before the cursor.
func (c completer) Do(line []rune, pos int) ([][]rune, int) {
	l := string(line[:pos])
	word := l
	if i := strings.LastIndexAny(l, " \t"); i >= 0 {
		word = l[i+1:]
	}
	var out [][]rune
	for _, cand := range c.s.Candidates(l) {
		if strings.HasPrefix(cand, word) {
			out = append(out, []rune(cand[len(word):]+" "))
		}
	}
	return out, len([]rune(word))
}

// Run runs a console session on the tree until `exit` from VIEW/ENABLE or
// end of input. Handlers run through ex.
func Run(v *vty.VTY, ex vty.Executor, cfg Config) error {
	var run func(func())
	if ex != nil {
		run = ex.Do
	}
	s := v.NewSession(run)
	if sn, ok := ex.(vty.StopNotifier); ok {
		s.SetStopped(sn.Stopped())
	}
	defer s.Release()
	rc := &readline.Config{
		Prompt:          s.Prompt(),
		AutoComplete:    completer{s},
		HistoryFile:     cfg.HistoryFile,
		Stdin:           cfg.In,
		Stdout:          cfg.Out,
		InterruptPrompt: "^C",
		EOFPrompt:       "exit",
		// Ctrl-Z would make readline suspend the whole process: drop it.
		FuncFilterInputRune: func(r rune) (rune, bool) {
			if r == readline.CharCtrlZ {
				return 0, false
			}
			return r, true
		},
	}
	if cfg.NotTerminal {
		rc.FuncIsTerminal = func() bool { return true }
		rc.FuncMakeRaw = func() error { return nil }
		rc.FuncExitRaw = func() error { return nil }
		rc.FuncGetWidth = func() int { return 80 }
		rc.FuncOnWidthChanged = func(func()) {}
	}
	var rl *readline.Instance
	rc.Listener = readline.FuncListener(func(line []rune, pos int, key rune) ([]rune, int, bool) {
		if key != '?' || pos == 0 || line[pos-1] != '?' {
			return nil, 0, false
		}
		nl := append(append([]rune{}, line[:pos-1]...), line[pos:]...)
		io.WriteString(rl.Stdout(), "\n"+s.Help(string(nl[:pos-1])))
		return nl, pos - 1, true
	})
	var err error
	rl, err = readline.NewEx(rc)
	if err != nil {
		return err
	}
	defer rl.Close()
	for {
		rl.SetPrompt(s.Prompt())
		line, err := rl.Readline()
		if errors.Is(err, readline.ErrInterrupt) {
			continue
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		out := s.Exec(line)
		if s.Closed() {
			return nil
		}
		io.WriteString(rl.Stdout(), out)
	}
}
