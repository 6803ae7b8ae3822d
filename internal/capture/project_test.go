package capture

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/handoff"
)

func checksString(cs []handoff.Check) string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Purpose+"="+c.Command)
	}
	return strings.Join(out, "; ")
}

func TestDetectProject(t *testing.T) {
	for _, tc := range []struct {
		name   string
		files  map[string]string // a name ending in / is a directory
		kind   string
		checks string
	}{
		{"empty", nil, "", ""},
		{"go", map[string]string{"go.mod": "module x\n"}, "go",
			"build=go build ./...; test=go test ./...; lint=go vet ./..."},
		{"go with golangci and a Makefile", map[string]string{"go.mod": "module x\n", ".golangci.yml": "", "Makefile": "test:\n\tgo test ./...\nlint:\n\tgolangci-lint run\n"}, "go",
			"test=make test; lint=make lint; build=go build ./...; test=go test ./...; lint=go vet ./...; lint=golangci-lint run"},
		{"node npm by default", map[string]string{"package.json": `{"name":"x","scripts":{"build":"tsc","test":"vitest","lint":"eslint .","typecheck":"tsc --noEmit","start":"node .","other":"x"}}`}, "node",
			"build=npm run build; test=npm test; lint=npm run lint; lint=npm run typecheck; run=npm start"},
		{"node pnpm", map[string]string{"package.json": `{"scripts":{"build":"vite build","test":"vitest"}}`, "pnpm-lock.yaml": ""}, "node",
			"build=pnpm build; test=pnpm test"},
		{"node yarn", map[string]string{"package.json": `{"scripts":{"lint":"eslint"}}`, "yarn.lock": ""}, "node", "lint=yarn lint"},
		{"node packageManager field", map[string]string{"package.json": `{"packageManager":"pnpm@9.1.0","scripts":{"test":"jest"}}`}, "node", "test=pnpm test"},
		{"node placeholder test", map[string]string{"package.json": `{"scripts":{"test":"echo \"Error: no test specified\" && exit 1"}}`}, "node", ""},
		{"node malformed package.json", map[string]string{"package.json": `{"scripts":{"test":"jest"},}`}, "node", ""},
		{"node scripts of the wrong type", map[string]string{"package.json": `{"scripts":{"test":["jest"],"build":"tsc"}}`}, "node", "build=npm run build"},
		{"python pyproject", map[string]string{"pyproject.toml": "[build-system]\nrequires = []\n[tool.pytest.ini_options]\n[tool.ruff.lint]\n[tool.mypy]\n", "uv.lock": ""}, "python",
			"build=python -m build; test=uv run pytest; lint=uv run ruff check .; lint=uv run mypy ."},
		{"python requirements and tests dir", map[string]string{"requirements.txt": "requests\n", "tests/": ""}, "python", "test=pytest"},
		{"python poetry", map[string]string{"pyproject.toml": "[tool.poetry]\nname='x'\n", "conftest.py": ""}, "python", "test=poetry run pytest"},
		{"python setup.py only", map[string]string{"setup.py": ""}, "python", ""},
		{"rust workspace", map[string]string{"Cargo.toml": "[workspace]\nmembers = [\"a\"]\n"}, "rust",
			"build=cargo build --workspace; test=cargo test --workspace; lint=cargo clippy --workspace"},
		{"rust crate", map[string]string{"Cargo.toml": "[package]\nname = \"x\"\n"}, "rust", "build=cargo build; test=cargo test; lint=cargo clippy"},
		{"maven wrapper", map[string]string{"pom.xml": "<project/>", "mvnw": ""}, "java-maven", "build=./mvnw -B package -DskipTests; test=./mvnw -B test"},
		{"gradle java", map[string]string{"build.gradle": "plugins { id 'java' }", "gradlew": ""}, "java-gradle", "build=./gradlew assemble; test=./gradlew test"},
		{"gradle kotlin", map[string]string{"build.gradle.kts": "plugins { kotlin(\"jvm\") version \"2.0.0\" }"}, "kotlin", "build=gradle assemble; test=gradle test"},
		{"ruby rspec", map[string]string{"Gemfile": "", "spec/": "", ".rubocop.yml": ""}, "ruby", "test=bundle exec rspec; lint=bundle exec rubocop"},
		{"ruby rake", map[string]string{"Gemfile": "", "Rakefile": ""}, "ruby", "test=bundle exec rake test"},
		{"php", map[string]string{"composer.json": `{"scripts":{"test":"phpunit"}}`, "phpstan.neon": ""}, "php", "test=composer test; lint=vendor/bin/phpstan analyse"},
		{"elixir", map[string]string{"mix.exs": "", ".credo.exs": ""}, "elixir", "build=mix compile; test=mix test; lint=mix format --check-formatted; lint=mix credo"},
		{"cmake", map[string]string{"CMakeLists.txt": "project(x)\nenable_testing()\n"}, "cmake", "build=cmake -S . -B build && cmake --build build; test=ctest --test-dir build"},
		{"make only, no known targets", map[string]string{"Makefile": "all:\n\tcc x.c\n"}, "make", "build=make"},
		{"make only", map[string]string{"Makefile": "build test: deps\n\tgo build\ncheck:: ; true\nfmt:\n"}, "make", "build=make build; test=make test; test=make check; lint=make fmt"},
		{"several markers: go wins, package.json scripts follow", map[string]string{"go.mod": "", "package.json": `{"scripts":{"build":"vite build"}}`, "requirements.txt": "", "Makefile": ""}, "go",
			"build=go build ./...; test=go test ./...; lint=go vet ./...; build=npm run build"},
		{"several markers: python before node", map[string]string{"pyproject.toml": "", "package.json": `{}`}, "python", ""},
		{"several markers: node before requirements.txt", map[string]string{"requirements.txt": "", "package.json": `{}`}, "node", ""},
		{"a directory named like a marker", map[string]string{"go.mod/": "", "Cargo.toml": ""}, "rust", "build=cargo build; test=cargo test; lint=cargo clippy"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, content := range tc.files {
				if strings.HasSuffix(name, "/") {
					if err := os.MkdirAll(filepath.Join(dir, name), 0o755); err != nil {
						t.Fatal(err)
					}
					continue
				}
				write(t, filepath.Join(dir, name), content)
			}
			kind, checks, err := DetectProject(dir)
			if err != nil {
				t.Fatal(err)
			}
			if kind != tc.kind || checksString(checks) != tc.checks {
				t.Errorf("got %q [%s]\nwant %q [%s]", kind, checksString(checks), tc.kind, tc.checks)
			}
		})
	}
}

func TestParseMakeTargets(t *testing.T) {
	mk := strings.Join([]string{
		"# build: in a comment",
		"VAR = a:b",
		"OTHER := x",
		"SIMPLE ::= y",
		"COND ?= c:d",
		"export EXP := e",
		"LONG = one \\",
		"  lint: not a target",
		"define RECIPE",
		"run: inside define",
		"endef",
		".PHONY: build test lint",
		"%.o: %.c",
		"$(BIN): main.o",
		"build: CFLAGS += -O2",
		"build test : deps # comment",
		"\tgo build ./... # a recipe with a colon: here",
		"\tfmt: in a recipe",
		"check::",
		"ifeq ($(OS),Windows_NT:x)",
		"endif",
		"vpath %.c src:lib",
		"multi \\",
		"  line: x",
		"with-recipe: ; echo x=1",
	}, "\n")
	got := parseMakeTargets([]byte(mk), false)
	want := []string{"build", "test", "check", "multi", "line", "with-recipe"}
	for _, w := range want {
		if !got[w] {
			t.Errorf("target %q not found in %v", w, got)
		}
	}
	if len(got) != len(want) {
		t.Errorf("targets %v, want exactly %v", got, want)
	}
	// A makefile over the read limit is read to the limit, its cut last
	// line ignored.
	big := strings.Repeat("# filler line\n", maxMarkerRead/14+10) + "test:\n"
	dir := t.TempDir()
	write(t, filepath.Join(dir, "Makefile"), "build:\n"+big)
	_, checks, err := DetectProject(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := checksString(checks); got != "build=make build" {
		t.Errorf("big makefile: %s", got)
	}
}

func TestDetectProjectStaysInside(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links and pipes")
	}
	outside := t.TempDir()
	write(t, filepath.Join(outside, "Makefile"), "test:\n")
	write(t, filepath.Join(outside, "package.json"), `{"scripts":{"test":"x"}}`)
	dir := t.TempDir()
	// Markers that are links out of the directory are not read, and
	// do not count.
	if err := os.Symlink(filepath.Join(outside, "Makefile"), filepath.Join(dir, "Makefile")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "sub")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("sub/package.json", filepath.Join(dir, "package.json")); err != nil {
		t.Fatal(err)
	}
	kind, checks, err := DetectProject(dir)
	if err != nil || kind != "" || len(checks) != 0 {
		t.Errorf("links out: %q %v %v", kind, checks, err)
	}
	// A link that stays inside is followed.
	write(t, filepath.Join(dir, "real", "go.mod"), "module x\n")
	if err := os.Symlink("real/go.mod", filepath.Join(dir, "go.mod")); err != nil {
		t.Fatal(err)
	}
	if kind, _, err := DetectProject(dir); err != nil || kind != "go" {
		t.Errorf("link inside: %q %v", kind, err)
	}
	// The directory itself must be one.
	if _, _, err := DetectProject(filepath.Join(outside, "Makefile")); err == nil {
		t.Error("a file was accepted as a project directory")
	}
	if _, _, err := DetectProject(filepath.Join(outside, "missing")); err == nil {
		t.Error("a missing directory was accepted")
	}
}
