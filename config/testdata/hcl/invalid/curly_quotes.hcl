hook "post-apply" {
  mode = “observe” # ERROR: Invalid character # ERROR: Invalid character
}
