# Policy tests for the notes example (agent test examples; check-config
# runs them too).

test "reading_a_note_runs_freely" {
  call   = { provider = "notes", tool = "read_note", input = { name = "todo" } }
  expect = "allow"
  rule   = "reads_ok"
}

test "writing_a_note_needs_approval" {
  call   = { provider = "notes", tool = "write_note", input = { name = "todo", text = "x" } }
  expect = "ask"
  rule   = "note_writes_need_approval"
}

test "deleting_a_note_is_denied" {
  call   = { provider = "notes", tool = "delete_note", input = { name = "todo" } }
  expect = "deny"
  rule   = "never_delete_notes"
}

test "reviewer_reads_notes" {
  profile = "reviewer"
  call    = { provider = "notes", tool = "read_note", input = { name = "todo" } }
  expect  = "allow"
  rule    = "reads_ok"
}

test "reviewer_cannot_write_notes" {
  profile = "reviewer"
  call    = { provider = "notes", tool = "write_note", input = { name = "todo", text = "x" } }
  expect  = "deny"
  rule    = "scope"
}
