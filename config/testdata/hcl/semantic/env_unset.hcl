provider "claude" {
  api_key  = env("CLAUDE_API_KEY")
  base_url = env("CLAUDE_BASE_URL_UNSET") # ERROR: Environment variable "CLAUDE_BASE_URL_UNSET" is not set
}

provider "web" {
  token = env("WEB_TOKEN_UNSET") # ERROR: Environment variable "WEB_TOKEN_UNSET" is not set
}
