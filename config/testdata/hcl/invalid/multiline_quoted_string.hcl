provider "claude" {
  # ERROR@+1: Invalid multi-line string
  system_prompt = "You are helpful.
Continue here."
}
