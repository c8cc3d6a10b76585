package serve

import "net/http"

// apiTemplates is GET /api/templates: the registry as `templates list
// --json` prints it (scopes, provenance, shadowing), each item with its
// directory, provenance line and XML.
func (s *Server) apiTemplates(w http.ResponseWriter, r *http.Request) {
	if s.opts.Templates == nil {
		writeJSON(w, []Template{})
		return
	}
	ts, err := s.opts.Templates(r.Context())
	if err != nil {
		fail(w, err)
		return
	}
	if ts == nil {
		ts = []Template{}
	}
	writeJSON(w, ts)
}
