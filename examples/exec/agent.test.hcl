# Policy tests for this example (agent test examples/exec; check-config runs
# them too). Each block is one call judged offline by the kernel's gate:
# the profile's tools, then policy on every segment of the command line.
# Most of them are the bypass family: ways to hide a denied command behind
# an allowed one.

# --- What the policy is for -------------------------------------------------

test "ls_runs_freely" {
  call   = { provider = "sh", tool = "bash", input = { command = "ls -la" } }
  expect = "allow"
  rule   = "ls_args"
}

test "git_status_runs_freely" {
  call   = { provider = "sh", tool = "bash", input = { command = "git status --short" } }
  expect = "allow"
  rule   = "git_status"
}

test "read_only_pipeline_runs_freely" {
  call   = { provider = "sh", tool = "bash", input = { command = "cat notes.md | grep TODO | wc -l" } }
  expect = "allow"
}

test "unknown_command_is_asked_for" {
  call   = { provider = "sh", tool = "bash", input = { command = "make build" } }
  expect = "ask"
  rule   = "default"
}

test "rm_is_denied" {
  call   = { provider = "sh", tool = "bash", input = { command = "rm -rf build" } }
  expect = "deny"
  rule   = "no_rm"
}

test "push_is_denied" {
  call   = { provider = "sh", tool = "bash", input = { command = "git push origin main" } }
  expect = "deny"
  rule   = "no_push"
}

test "background_output_is_read_freely" {
  call   = { provider = "sh", tool = "bash_output", input = { id = "1" } }
  expect = "allow"
  rule   = "background_output"
}

test "killing_a_background_command_is_asked_for" {
  call   = { provider = "sh", tool = "bash_kill", input = { id = "1" } }
  expect = "ask"
  rule   = "default"
}

# --- Compound commands: && ; | || & ------------------------------------------

test "rm_behind_and" {
  call    = { provider = "sh", tool = "bash", input = { command = "git status && rm -rf build" } }
  expect  = "deny"
  rule    = "no_rm"
  segment = "rm -rf build"
}

test "rm_behind_semicolon" {
  call    = { provider = "sh", tool = "bash", input = { command = "ls; rm -rf build" } }
  expect  = "deny"
  rule    = "no_rm"
  segment = "rm -rf build"
}

test "rm_behind_pipe" {
  call    = { provider = "sh", tool = "bash", input = { command = "ls | rm -rf build" } }
  expect  = "deny"
  rule    = "no_rm"
  segment = "rm -rf build"
}

test "rm_behind_or" {
  call    = { provider = "sh", tool = "bash", input = { command = "false || rm -rf build" } }
  expect  = "deny"
  rule    = "no_rm"
  segment = "rm -rf build"
}

test "rm_in_background" {
  call    = { provider = "sh", tool = "bash", input = { command = "rm -rf build & ls" } }
  expect  = "deny"
  rule    = "no_rm"
  segment = "rm -rf build"
}

test "rm_in_subshell" {
  call    = { provider = "sh", tool = "bash", input = { command = "ls && (cd /tmp; rm -rf build)" } }
  expect  = "deny"
  rule    = "no_rm"
  segment = "rm -rf build"
}

test "rm_in_if_body" {
  call    = { provider = "sh", tool = "bash", input = { command = "if git status; then rm -rf build; fi" } }
  expect  = "deny"
  rule    = "no_rm"
  segment = "rm -rf build"
}

test "push_behind_allowed_git_commands" {
  call    = { provider = "sh", tool = "bash", input = { command = "git status && git diff && git push --force" } }
  expect  = "deny"
  rule    = "no_push"
  segment = "git push --force"
}

# --- Newlines ----------------------------------------------------------------

test "rm_on_a_second_line" {
  call    = { provider = "sh", tool = "bash", input = { command = "ls\nrm -rf build" } }
  expect  = "deny"
  rule    = "no_rm"
  segment = "rm -rf build"
}

test "rm_after_a_line_continuation" {
  call    = { provider = "sh", tool = "bash", input = { command = "ls \\\n && rm -rf build" } }
  expect  = "deny"
  rule    = "no_rm"
  segment = "rm -rf build"
}

# --- Substitutions: $( ) and backticks ---------------------------------------

test "rm_in_command_substitution" {
  call    = { provider = "sh", tool = "bash", input = { command = "ls $(rm -rf build)" } }
  expect  = "deny"
  rule    = "no_rm"
  segment = "rm -rf build"
}

test "rm_in_backticks" {
  call    = { provider = "sh", tool = "bash", input = { command = "cat `rm -rf build`" } }
  expect  = "deny"
  rule    = "no_rm"
  segment = "rm -rf build"
}

test "rm_in_substitution_inside_double_quotes" {
  call    = { provider = "sh", tool = "bash", input = { command = "grep \"$(rm -rf build)\" notes.md" } }
  expect  = "deny"
  rule    = "no_rm"
  segment = "rm -rf build"
}

test "rm_in_process_substitution" {
  call    = { provider = "sh", tool = "bash", input = { command = "cat <(rm -rf build)" } }
  expect  = "deny"
  rule    = "no_rm"
  segment = "rm -rf build"
}

test "rm_in_assignment_substitution" {
  call    = { provider = "sh", tool = "bash", input = { command = "X=$(rm -rf build) ls" } }
  expect  = "deny"
  rule    = "no_rm"
  segment = "rm -rf build"
}

test "rm_in_unquoted_heredoc_substitution" {
  call    = { provider = "sh", tool = "bash", input = { command = "cat <<EOF\n$(rm -rf build)\nEOF" } }
  expect  = "deny"
  rule    = "no_rm"
  segment = "rm -rf build"
}

# --- Wrappers -----------------------------------------------------------------

test "rm_behind_env" {
  call    = { provider = "sh", tool = "bash", input = { command = "env FOO=1 rm -rf build" } }
  expect  = "deny"
  rule    = "no_rm"
  segment = "rm -rf build"
}

test "rm_behind_sudo" {
  call   = { provider = "sh", tool = "bash", input = { command = "sudo rm -rf build" } }
  expect = "deny"
}

test "rm_behind_xargs" {
  call    = { provider = "sh", tool = "bash", input = { command = "ls | xargs rm -rf" } }
  expect  = "deny"
  rule    = "no_rm"
  segment = "rm -rf"
}

test "rm_behind_bash_c" {
  call    = { provider = "sh", tool = "bash", input = { command = "bash -c 'rm -rf build'" } }
  expect  = "deny"
  rule    = "no_rm"
  segment = "rm -rf build"
}

test "rm_behind_nested_sh_c" {
  call    = { provider = "sh", tool = "bash", input = { command = "sh -c \"bash -c 'ls; rm -rf build'\"" } }
  expect  = "deny"
  rule    = "no_rm"
  segment = "rm -rf build"
}

test "rm_behind_timeout_nice_nohup" {
  call    = { provider = "sh", tool = "bash", input = { command = "timeout 5 nice -n 10 nohup rm -rf build" } }
  expect  = "deny"
  rule    = "no_rm"
  segment = "rm -rf build"
}

test "rm_behind_find_exec" {
  call   = { provider = "sh", tool = "bash", input = { command = "find . -name '*.o' -exec rm -f {} \\;" } }
  expect = "deny"
  rule   = "no_rm"
}

test "rm_behind_command_builtin" {
  call    = { provider = "sh", tool = "bash", input = { command = "command rm -rf build" } }
  expect  = "deny"
  rule    = "no_rm"
  segment = "rm -rf build"
}

test "rm_by_absolute_path" {
  call    = { provider = "sh", tool = "bash", input = { command = "/bin/rm -rf build" } }
  expect  = "deny"
  rule    = "no_rm"
  segment = "rm -rf build"
}

test "rm_behind_prefix_assignment" {
  call    = { provider = "sh", tool = "bash", input = { command = "LANG=C rm -rf build" } }
  expect  = "deny"
  rule    = "no_rm"
  segment = "rm -rf build"
}

test "eval_is_never_allowed" {
  call   = { provider = "sh", tool = "bash", input = { command = "eval \"rm -rf build\"" } }
  expect = "ask"
  rule   = "unparseable"
}

test "command_in_a_variable_is_never_allowed" {
  call   = { provider = "sh", tool = "bash", input = { command = "X=rm; $X -rf build" } }
  expect = "ask"
  rule   = "unparseable"
}

# --- Redirects -----------------------------------------------------------------

test "overwriting_a_file_is_its_own_segment" {
  call    = { provider = "sh", tool = "bash", input = { command = "cat notes.md > agent.hcl" } }
  expect  = "ask"
  rule    = "default"
  segment = "> agent.hcl"
}

test "appending_to_a_file_is_its_own_segment" {
  call    = { provider = "sh", tool = "bash", input = { command = "ls >> notes.md" } }
  expect  = "ask"
  segment = ">> notes.md"
}

test "discarding_output_is_allowed" {
  call   = { provider = "sh", tool = "bash", input = { command = "ls > /dev/null 2> /dev/null" } }
  expect = "allow"
}

test "discarding_output_does_not_allow_rm" {
  call    = { provider = "sh", tool = "bash", input = { command = "rm -rf build > /dev/null" } }
  expect  = "deny"
  rule    = "no_rm"
  segment = "rm -rf build"
}

test "redirect_target_substitution" {
  call    = { provider = "sh", tool = "bash", input = { command = "ls > \"$(rm -rf build)\"" } }
  expect  = "deny"
  rule    = "no_rm"
  segment = "rm -rf build"
}

# --- Quoting tricks --------------------------------------------------------------

test "quoted_command_name" {
  call    = { provider = "sh", tool = "bash", input = { command = "\"rm\" -rf build" } }
  expect  = "deny"
  rule    = "no_rm"
  segment = "rm -rf build"
}

test "split_quotes_in_command_name" {
  call    = { provider = "sh", tool = "bash", input = { command = "r''m -rf build" } }
  expect  = "deny"
  rule    = "no_rm"
  segment = "rm -rf build"
}

test "backslash_in_command_name" {
  call    = { provider = "sh", tool = "bash", input = { command = "r\\m -rf build" } }
  expect  = "deny"
  rule    = "no_rm"
  segment = "rm -rf build"
}

test "ansi_c_quoted_command_name" {
  call   = { provider = "sh", tool = "bash", input = { command = "$'rm' -rf build" } }
  expect = "deny"
  rule   = "no_rm"
}

test "extra_spaces_normalize" {
  call    = { provider = "sh", tool = "bash", input = { command = "git   status" } }
  expect  = "allow"
  rule    = "git_status"
  segment = "git status"
}

test "allowed_prefix_does_not_match_a_longer_command" {
  call   = { provider = "sh", tool = "bash", input = { command = "lsblk" } }
  expect = "ask"
  rule   = "default"
}

test "unterminated_quote_is_never_allowed" {
  call   = { provider = "sh", tool = "bash", input = { command = "ls 'notes.md" } }
  expect = "ask"
  rule   = "unparseable"
}
