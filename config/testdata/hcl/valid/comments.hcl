# Hash comment at the top.
// Slash comment.
/* Block comment
   over several lines. */

required_providers { # after an opening brace
  fs = { # inside an object
    source = "gitlab.com/tools-team/provider-fs" // after a value
    /* before a key */ version = "~> 0.9"
  }
}

provider "fs" {
  roots = [
    ".", # inside a list
    // on its own line in a list
    "../docs", /* after a comma */
  ]
}

settings {
  log_level = /* before a value */ "info"
  telemetry = false # last line without a newline after the comment
} # after a closing brace
# The file ends with a comment and no newline.