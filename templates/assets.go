package templates

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/evalrun/evalrun/internal/suggest"
)

// The asset library (SPEC §22.7): ready templates embedded in the binary,
// never loaded at run time; `evalrun templates add NAME` copies one into a
// template directory to activate it.

//go:embed assets/*.xml
var assetFS embed.FS

// Asset is one template of the asset library.
type Asset struct {
	// Name is the template's name and the file's base name.
	Name string
	// Description is the template's description.
	Description string
	// Type and Subtype are the template's.
	Type, Subtype string
	// XML is the file's text.
	XML string
}

// Assets returns the asset library in name order.
func Assets() []Asset { return slices.Clone(assets()) }

var assets = sync.OnceValue(func() []Asset {
	names, _ := fs.Glob(assetFS, "assets/*.xml")
	slices.Sort(names)
	var out []Asset
	for _, n := range names {
		data, _ := assetFS.ReadFile(n)
		ts, diags := ParseFile("<asset>/"+n[len("assets/"):], data, ScopeBuiltin)
		if HasErrors(diags) || len(ts) != 1 {
			panic("templates: invalid asset template " + n)
		}
		out = append(out, Asset{Name: ts[0].Name, Description: ts[0].Description, Type: ts[0].Type, Subtype: ts[0].Subtype, XML: string(data)})
	}
	return out
})

// LookupAsset returns the asset called name.
func LookupAsset(name string) (Asset, bool) {
	for _, a := range assets() {
		if a.Name == name {
			return a, true
		}
	}
	return Asset{}, false
}

// ErrExists is returned by AddAsset when the target file exists.
var ErrExists = errors.New("file exists")

// AddAsset copies the asset called name into the template directory dir as
// NAME.xml, or, with as set, as AS.xml with the template renamed AS. It
// refuses to overwrite a file (the error wraps ErrExists) and returns the
// path written. An unknown name is an error listing the assets, with the
// nearest one first when the name looks misspelt.
func AddAsset(dir, name, as string) (string, error) {
	a, ok := LookupAsset(name)
	if !ok {
		var names []string
		for _, x := range assets() {
			names = append(names, x.Name)
		}
		if near := suggest.Near(name, names); near != "" {
			return "", fmt.Errorf("unknown asset template '%s' (did you mean '%s'? assets: %s)", name, near, strings.Join(names, ", "))
		}
		return "", fmt.Errorf("unknown asset template '%s' (assets: %s)", name, strings.Join(names, ", "))
	}
	text := a.XML
	target := name
	if as != "" {
		if !ValidName(as) {
			return "", fmt.Errorf("invalid template name '%s'", as)
		}
		text = strings.Replace(text, `<task name="`+name+`"`, `<task name="`+as+`"`, 1)
		target = as
	}
	path := filepath.Join(dir, filepath.FromSlash(target)+".xml")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return "", fmt.Errorf("%s: %w; not overwritten", path, ErrExists)
	}
	if err != nil {
		return "", err
	}
	if _, err := f.WriteString(text); err != nil {
		f.Close()
		os.Remove(path)
		return "", err
	}
	return path, f.Close()
}
