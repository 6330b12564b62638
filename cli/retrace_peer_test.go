package cli

import (
	"archive/zip"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/testkit/testpeer"
)

const retraceDemo = `package com.example.demo;

public class Main {
    interface Shape { int area(); }
    static class Square implements Shape { int side = 3; public int area() { return side * side; } }
    static class Circle implements Shape { int r = 2; public int area() { return 3 * r * r; } }
    static class Failure extends RuntimeException {
        Failure(String m, Throwable cause) { super(m, cause); }
    }

    static int measure(Object o) {
        Square s = (Square) o;
        return s.area();
    }

    static int measure(int n) { return n * 2; }

    static int level(int depth, Object o) {
        if (depth == 0) {
            return measure(o);
        }
        return measure(depth) + level(depth - 1, o);
    }

    public static void main(String[] args) {
        try {
            System.out.println(level(3, args.length > 5 ? new Square() : new Circle()));
        } catch (ClassCastException e) {
            throw new Failure("wrapped", e);
        }
    }
}
`

// retraceInlined is optimised by ProGuard: measure and Square.area are
// inlined into level, so one obfuscated frame stands for several.
const retraceInlined = `package com.example.demo;

public class Main {
    static class Square { int side = 3; int area() { return side * side; } }
    static class Circle { int r = 2; }

    private static int measure(Object o) {
        Square s = (Square) o;
        return s.area();
    }

    private static int level(int depth, Object o) {
        if (depth == 0) {
            return measure(o);
        }
        return depth + level(depth - 1, o);
    }

    public static void main(String[] args) {
        System.out.println(level(3, args.length > 5 ? new Square() : new Circle()));
    }
}
`

// TestRetraceMatchesProGuard obfuscates small programs with ProGuard
// (Debian proguard-cli 6.2.2), once without optimisation and once with its
// inlining, runs each to throw, and checks that `ddmtui retrace` gives the
// frames ProGuard's own ReTrace gives.
func TestRetraceMatchesProGuard(t *testing.T) {
	javac := testpeer.Require(t, "javac")
	java := testpeer.Require(t, "java")
	proguard := testpeer.Require(t, "proguard")
	retraceJar := "/usr/share/java/retrace.jar"
	if _, err := os.Stat(retraceJar); err != nil {
		testpeer.Missing(t, retraceJar+" is missing (Debian proguard-cli ships it)")
	}
	lib := filepath.Join(t.TempDir(), "rt8.jar")
	writeJava8Library(t, javac, lib)
	for _, tc := range []struct {
		name, src, options string
		want               []string
	}{
		{"plain", retraceDemo, "-dontoptimize", []string{
			"com.example.demo.Main$Failure: wrapped",
			"class com.example.demo.Main$Circle cannot be cast to class com.example.demo.Main$Square",
			"at com.example.demo.Main.measure(Main.java:12)",
		}},
		{"inlined", retraceInlined, "", []string{
			"\tat com.example.demo.Main.measure(Main.java:8)\n\tat com.example.demo.Main.level(Main.java:14)\n",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			retraceAgainstProGuard(t, javac, java, proguard, retraceJar, lib, tc.src, tc.options, tc.want)
		})
	}
}

func retraceAgainstProGuard(t *testing.T, javac, java, proguard, retraceJar, lib, source, options string, want []string) {
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	run := func(name string, args ...string) []byte {
		t.Helper()
		cmd := exec.CommandContext(ctx, name, args...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil && name != java {
			t.Fatalf("%s %v: %v\n%s", name, args, err, out)
		}
		return out
	}
	src := filepath.Join(dir, "Main.java")
	if err := os.WriteFile(src, []byte(source), 0o644); err != nil {
		t.Fatal(err)
	}
	run(javac, "--release", "8", "-d", "classes", src)
	if err := zipDir(filepath.Join(dir, "in.jar"), filepath.Join(dir, "classes"), nil); err != nil {
		t.Fatal(err)
	}
	conf := `-injars in.jar
-outjars out.jar
-libraryjars ` + lib + `
-printmapping mapping.txt
-keepattributes SourceFile,LineNumberTable
-renamesourcefileattribute SourceFile
` + options + `
-keep public class com.example.demo.Main { public static void main(java.lang.String[]); }
`
	if err := os.WriteFile(filepath.Join(dir, "pg.pro"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	run(proguard, "@pg.pro")
	stack := run(java, "-cp", "out.jar", "com.example.demo.Main")
	if !bytes.Contains(stack, []byte("java.lang.ClassCastException")) {
		t.Fatalf("the program did not throw as planned:\n%s", stack)
	}
	if bytes.Contains(stack, []byte("Main$Square")) {
		t.Fatalf("ProGuard did not obfuscate:\n%s", stack)
	}
	stackPath := filepath.Join(dir, "stack.txt")
	if err := os.WriteFile(stackPath, stack, 0o644); err != nil {
		t.Fatal(err)
	}
	wantText := string(run(java, "-cp", retraceJar, "proguard.retrace.ReTrace", "mapping.txt", "stack.txt"))
	got, err := runApp(t, "retrace", "--mapping", filepath.Join(dir, "mapping.txt"), stackPath)
	if err != nil {
		t.Fatal(err)
	}
	gotLines, wantLines := strings.Split(got, "\n"), strings.Split(wantText, "\n")
	if len(gotLines) != len(wantLines) {
		t.Fatalf("line counts differ\nddmtui:\n%s\nReTrace:\n%s", got, wantText)
	}
	frames := 0
	for i := range gotLines {
		g, w := gotLines[i], wantLines[i]
		if strings.Contains(w, "\tat ") {
			frames++
			if g != w {
				t.Errorf("line %d:\n ddmtui  %q\n ReTrace %q", i+1, g, w)
			}
			continue
		}
		// Exception lines: the throwable's class as ReTrace names it (ReTrace
		// leaves the class names inside the message as they are).
		if head, _, ok := strings.Cut(w, ": "); ok && !strings.HasPrefix(strings.TrimSpace(w), "...") {
			if !strings.HasPrefix(g, head) {
				t.Errorf("line %d: %q does not start like ReTrace's %q", i+1, g, w)
			}
		}
	}
	if frames < 5 {
		t.Errorf("only %d frames compared:\n%s", frames, wantText)
	}
	for _, s := range want {
		if !strings.Contains(got, s) {
			t.Errorf("retraced text lacks %q:\n%s", s, got)
		}
	}
}

// writeJava8Library writes the Java 8 API (the JDK's ct.sym, release 8) as
// a jar of class files ProGuard 6.2.2 reads: it reads class files up to
// Java 13, so the version of each is set to 52 (Java 8), which is what the
// API describes.
func writeJava8Library(t *testing.T, javac, out string) {
	t.Helper()
	real, err := filepath.EvalSymlinks(javac)
	if err != nil {
		t.Fatal(err)
	}
	ctSym := filepath.Join(filepath.Dir(filepath.Dir(real)), "lib", "ct.sym")
	zr, err := zip.OpenReader(ctSym)
	if err != nil {
		testpeer.Missing(t, "the JDK's lib/ct.sym: "+err.Error())
	}
	defer zr.Close()
	files := map[string][]byte{}
	for _, f := range zr.File {
		parts := strings.Split(f.Name, "/")
		if len(parts) < 2 || !strings.Contains(parts[0], "8") || !strings.HasSuffix(f.Name, ".sig") {
			continue
		}
		rest := parts[1:]
		if strings.Contains(rest[0], ".") && len(rest) > 1 { // a module directory (java.base)
			rest = rest[1:]
		}
		name := strings.TrimSuffix(strings.Join(rest, "/"), ".sig") + ".class"
		if _, dup := files[name]; dup {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		_, err = b.ReadFrom(rc)
		rc.Close()
		if err != nil || b.Len() < 8 {
			t.Fatalf("%s: %v", f.Name, err)
		}
		data := b.Bytes()
		data[6], data[7] = 0, 52
		files[name] = data
	}
	if len(files) < 1000 {
		testpeer.Missing(t, "ct.sym holds no Java 8 API")
	}
	if err := zipDir(out, "", files); err != nil {
		t.Fatal(err)
	}
}

// zipDir writes a jar of dir's files, or of files when dir is "".
func zipDir(out, dir string, files map[string][]byte) error {
	if dir != "" {
		files = map[string][]byte{}
		err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
			if err != nil || info.IsDir() {
				return err
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(dir, p)
			files[filepath.ToSlash(rel)] = data
			return nil
		})
		if err != nil {
			return err
		}
	}
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	zw := zip.NewWriter(f)
	for name, data := range files {
		w, err := zw.Create(name)
		if err != nil {
			return err
		}
		if _, err := w.Write(data); err != nil {
			return err
		}
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return f.Close()
}
