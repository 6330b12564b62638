// Package mapgen writes realistic R8 mapping files of a chosen size for the
// mapping package's benchmarks and scripts/bench-mapping.sh: classes with
// sourceFile metadata, fields, methods with line ranges, inline chains,
// overloads sharing a name, residual signatures and synthesized lambdas, in
// the proportions of a large app's mapping.txt. Deterministic from a seed.
package mapgen

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
)

var (
	words = []string{"account", "feed", "player", "settings", "network", "cache", "image", "auth", "search",
		"profile", "upload", "chat", "payment", "analytics", "render", "storage", "sync", "media", "ui", "core"}
	nouns = []string{"Manager", "Repository", "ViewModel", "Fragment", "Adapter", "Service", "Client", "Helper",
		"Controller", "Presenter", "Factory", "Provider", "Worker", "Module", "Handler", "Cache", "Parser"}
	verbs = []string{"load", "save", "update", "fetch", "bind", "render", "parse", "handle", "compute", "notify",
		"create", "dispatch", "observe", "resolve", "apply"}
	types = []string{"int", "long", "boolean", "java.lang.String", "java.util.List", "android.content.Context",
		"android.view.View", "java.lang.Object", "kotlin.jvm.functions.Function1", "byte[]"}
)

// obfName is the n-th short name: a, b, …, z, aa, ab, …
func obfName(n int) string {
	var b []byte
	for {
		b = append([]byte{byte('a' + n%26)}, b...)
		n = n/26 - 1
		if n < 0 {
			return string(b)
		}
	}
}

// Class is one generated class, for tests that retrace what was generated.
type Class struct {
	Original, Obfuscated string
	Method, Obf          string // one of its methods and its obfuscated name
	Line                 int    // an obfuscated line inside that method
}

// Write writes about size bytes of mapping to w and returns a sample of its
// classes (one in a hundred).
func Write(w io.Writer, size int64, seed uint64) ([]Class, error) {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	bw := bufio.NewWriterSize(w, 1<<20)
	var n int64
	put := func(format string, args ...any) {
		k, _ := fmt.Fprintf(bw, format, args...)
		n += int64(k)
	}
	put("# compiler: R8\n# compiler_version: 8.5.35\n# min_api: 24\n")
	put("# {\"id\":\"com.android.tools.r8.mapping\",\"version\":\"2.2\"}\n")
	put("# pg_map_id: 3f1a9c2\n# pg_map_hash: SHA-256 3f1a9c2e8b7d6f5a4c3b2a1908f7e6d5c4b3a2918f7e6d5c4b3a29180f7e6d5c\n")
	var sample []Class
	for ci := 0; n < size; ci++ {
		pkg := fmt.Sprintf("com.example.app.%s.%s", words[r.IntN(len(words))], words[r.IntN(len(words))])
		simple := fmt.Sprintf("%s%s%d", capital(words[r.IntN(len(words))]), nouns[r.IntN(len(nouns))], ci)
		orig := pkg + "." + simple
		obf := obfName(ci/400) + "." + obfName(ci%400)
		if r.IntN(12) == 0 {
			// A synthesized lambda class.
			put("%s$$ExternalSyntheticLambda%d -> %s:\n", orig, r.IntN(4), obf)
			put("# {\"id\":\"sourceFile\",\"fileName\":\"R8$$SyntheticClass\"}\n# {\"id\":\"com.android.tools.r8.synthesized\"}\n")
			put("    %s f$0 -> a\n", orig)
			put("    1:1:void run():0:0 -> run\n    # {\"id\":\"com.android.tools.r8.synthesized\"}\n")
			continue
		}
		put("%s -> %s:\n", orig, obf)
		put("# {\"id\":\"sourceFile\",\"fileName\":\"%s.kt\"}\n", simple)
		for f := 0; f < r.IntN(5); f++ {
			put("    %s %sField%d -> %s\n", types[r.IntN(len(types))], words[r.IntN(len(words))], f, obfName(f))
		}
		line := 1
		methods := 3 + r.IntN(10)
		var pick Class
		for mi := 0; mi < methods; mi++ {
			name := verbs[r.IntN(len(verbs))] + capital(words[r.IntN(len(words))])
			args := ""
			for a := 0; a < r.IntN(4); a++ {
				if a > 0 {
					args += ","
				}
				args += types[r.IntN(len(types))]
			}
			ret := types[r.IntN(len(types))]
			o := obfName(mi % 6) // overloads share names, as R8 does
			src := 10 + r.IntN(400)
			span := r.IntN(12)
			if r.IntN(4) == 0 {
				// An inline chain: a callee from another class inlined here.
				callee := fmt.Sprintf("com.example.app.%s.%sUtil.%s", words[r.IntN(len(words))], capital(words[r.IntN(len(words))]), verbs[r.IntN(len(verbs))])
				put("    %d:%d:%s %s(%s):%d:%d -> %s\n", line, line+span, ret, callee, "int", src, src+span, o)
				put("    %d:%d:%s %s(%s):%d -> %s\n", line, line+span, ret, name, args, src+20, o)
			} else {
				put("    %d:%d:%s %s(%s):%d:%d -> %s\n", line, line+span, ret, name, args, src, src+span, o)
			}
			if r.IntN(10) == 0 {
				put("    # {\"id\":\"com.android.tools.r8.residualsignature\",\"signature\":\"(I)V\"}\n")
			}
			if mi == 0 {
				pick = Class{Original: orig, Obfuscated: obf, Method: name, Obf: o, Line: line}
			}
			line += span + 1
		}
		if ci%100 == 0 {
			sample = append(sample, pick)
		}
	}
	return sample, bw.Flush()
}

func capital(s string) string { return string(s[0]-'a'+'A') + s[1:] }
