package cli

import (
	"fmt"
	"runtime/debug"

	"github.com/urfave/cli/v2"
)

// Commit is the VCS revision the binary was built from, set with
// -ldflags "-X github.com/ddmtui/ddmtui/cli.Commit=..." (make build, make
// dist); otherwise read from the build information Go embeds.
var Commit = ""

// buildInfo returns the version and commit to print: the ldflags values,
// else what `go build`/`go install` recorded (module version, vcs revision).
func buildInfo() (version, commit string) {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		info = nil
	}
	return versionFrom(info)
}

// versionFrom is buildInfo over the build information info (nil: none).
func versionFrom(info *debug.BuildInfo) (version, commit string) {
	version, commit = Version, Commit
	if info == nil {
		return version, commit
	}
	if version == "dev" && info.Main.Version != "" && info.Main.Version != "(devel)" {
		version = info.Main.Version
	}
	if commit == "" {
		dirty := false
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				commit = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
		if dirty && commit != "" {
			commit += "-dirty"
		}
	}
	return version, commit
}

// noCommit is what version says of a binary that carries no commit: Go
// stamps one only when `go build` or `go install` runs in a git checkout
// with -buildvcs on, which `go run`, GOFLAGS=-buildvcs=false and a git
// worktree (whose .git is a file) all leave out.
const noCommit = "commit unknown: built without VCS stamping (go run, -buildvcs=false or a git worktree); `make build` sets it"

func versionCommand() *cli.Command {
	return &cli.Command{
		Name:  "version",
		Usage: "print the ddmtui version and the commit it was built from",
		Action: func(c *cli.Context) error {
			v, commit := buildInfo()
			what := "commit " + commit
			if commit == "" {
				what = noCommit
			}
			_, err := fmt.Fprintf(c.App.Writer, "ddmtui %s (%s)\n", v, what)
			return err
		},
	}
}

// bashCompletion and zshCompletion hand the word being completed to ddmtui
// itself: urfave/cli answers --generate-bash-completion with the commands or
// flags that fit, from the same definitions that parse them, so the scripts
// never list a command or flag by hand.
const bashCompletion = `# bash completion for ddmtui: eval "$(ddmtui completion bash)"
_ddmtui_complete() {
  local cur="${COMP_WORDS[COMP_CWORD]}" words
  if [[ "$cur" == -* ]]; then
    words=$("${COMP_WORDS[@]:0:COMP_CWORD}" "$cur" --generate-bash-completion 2>/dev/null)
  else
    words=$("${COMP_WORDS[@]:0:COMP_CWORD}" --generate-bash-completion 2>/dev/null)
  fi
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -o bashdefault -o default -F _ddmtui_complete ddmtui
`

const zshCompletion = `#compdef ddmtui
# zsh completion for ddmtui: ddmtui completion zsh > "${fpath[1]}/_ddmtui"
_ddmtui() {
  local cur=${words[CURRENT]}
  local -a found
  if [[ $cur == -* ]]; then
    found=("${(@f)$(${words[1,CURRENT-1]} $cur --generate-bash-completion 2>/dev/null)}")
  else
    found=("${(@f)$(${words[1,CURRENT-1]} --generate-bash-completion 2>/dev/null)}")
  fi
  compadd -- ${found%%:*}
}
if [[ $zsh_eval_context[-1] == loadautofunc ]]; then
  _ddmtui "$@"
else
  compdef _ddmtui ddmtui
fi
`

func completionCommand() *cli.Command {
	return &cli.Command{
		Name:      "completion",
		Usage:     "print a shell completion script (bash, zsh or fish)",
		ArgsUsage: "bash|zsh|fish",
		Description: "bash: eval \"$(ddmtui completion bash)\" in ~/.bashrc\n" +
			"zsh:  ddmtui completion zsh > \"${fpath[1]}/_ddmtui\"\n" +
			"fish: ddmtui completion fish > ~/.config/fish/completions/ddmtui.fish",
		Action: func(c *cli.Context) error {
			var script string
			switch shell := c.Args().First(); shell {
			case "bash":
				script = bashCompletion
			case "zsh":
				script = zshCompletion
			case "fish":
				s, err := c.App.ToFishCompletion()
				if err != nil {
					return err
				}
				script = s
			default:
				return badValue(c, fmt.Errorf("completion: want bash, zsh or fish, not %q", shell))
			}
			_, err := fmt.Fprint(c.App.Writer, script)
			return err
		},
	}
}

func manCommand() *cli.Command {
	return &cli.Command{
		Name:   "man",
		Usage:  "print the manual page (roff), generated from the command definitions",
		Hidden: true,
		Action: func(c *cli.Context) error {
			page, err := c.App.ToManWithSection(1)
			if err != nil {
				return err
			}
			_, err = fmt.Fprint(c.App.Writer, page)
			return err
		},
	}
}
