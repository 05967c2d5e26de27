package prom

import (
	"net/http"
	"strconv"
)

// Handler is the page as a net/http handler, for the tests that scrape
// without a socket (the package itself does not import net/http).
func (e *Exporter) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.scrape(func(page []byte) {
			h := w.Header()
			h.Set("Content-Type", contentType)
			h.Set("Content-Length", strconv.Itoa(len(page)))
			w.Write(page)
		})
	})
}
