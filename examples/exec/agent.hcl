# A shell-using agent: the scripted model (it replays script.json, so the
# run is deterministic and needs no API key) and the exec provider, which
# runs `bash -c` in this directory. Policy judges every simple command of a
# command line (its segments, see plugins/exec/README.md): read-only
# commands run without asking, destructive ones are refused, anything else
# is asked for (and refused when nobody can answer).
#
#   deno run -A main.ts run "Look around" --dir examples/exec --locked

required_providers {
  scripted = { source = "builtin/scripted", version = "~> 0.1" }
  sh       = { source = "builtin/exec", version = "~> 0.1" }
}

provider "scripted" {
  script     = "./script.json"
  allow_read = ["."]
}

provider "sh" {
  roots             = ["."]
  allow_run         = ["bash"] # the manifest asks to run bash
  allow_read        = ["."]    # to resolve working directories and roots
  default_timeout_s = 60
  max_timeout_s     = 300
  env = {
    LANG = "C.UTF-8"
  }
}

# Commands that only read. A pattern matches one segment's normalized text
# as a whole: "ls" is `ls` alone, "ls *" is `ls` with arguments.
policy "ls" {
  match  = { provider = "sh", command = "ls" }
  action = "allow"
}

policy "ls_args" {
  match  = { provider = "sh", command = "ls *" }
  action = "allow"
}

policy "cat" {
  match  = { provider = "sh", command = "cat *" }
  action = "allow"
}

policy "wc" {
  match  = { provider = "sh", command = "wc *" }
  action = "allow"
}

policy "grep" {
  match  = { provider = "sh", command = "grep *" }
  action = "allow"
}

policy "git_status" {
  match  = { provider = "sh", command = "git status*" }
  action = "allow"
}

policy "git_diff" {
  match  = { provider = "sh", command = "git diff*" }
  action = "allow"
}

policy "git_log" {
  match  = { provider = "sh", command = "git log*" }
  action = "allow"
}

# Discarding output is harmless. A redirection that writes a file is always
# a segment of its own, never part of its command's text: these rules allow
# the redirection alone (`ls > /dev/null` still needs `ls` allowed, and
# `rm -rf x > /dev/null` is still denied by no_rm); every other one is
# decided by the default (ask).
policy "discard_stdout" {
  match  = { provider = "sh", command = "> /dev/null" }
  action = "allow"
}

policy "discard_stderr" {
  match  = { provider = "sh", command = "2> /dev/null" }
  action = "allow"
}

# Never, whatever else the line does: a deny is set aside only by a rule
# strictly narrower on its own keys (check-config warns about any such
# allow, W_POLICY_ALLOW_SHADOWS_DENY), and this file has none.
policy "no_rm" {
  match  = { command = "rm *" }
  action = "deny"
}

policy "no_sudo" {
  match  = { command = "sudo *" }
  action = "deny"
}

policy "no_push" {
  match  = { command = "git push*" }
  action = "deny"
}

# Reading a background command's output needs no approval (the default for
# a data source, stated here).
policy "background_output" {
  match  = { provider = "sh", tool_name = "bash_output" }
  action = "allow"
}

agent_profile "default" {
  model {
    primary {
      provider = "scripted"
      id       = "scripted"
    }
  }
  tools            = ["sh.*"]
  max_turns        = 10
  max_cost_usd     = 0.50
  max_wall_clock_s = 120
}
