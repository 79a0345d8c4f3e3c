# ERROR@EOF: Missing expression
required_providers {
  fs = {
