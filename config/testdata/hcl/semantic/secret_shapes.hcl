# Sensitive attributes (api_key, token, auth, *_key, *_secret ...) must be env("LITERAL").
provider "claude" {
  api_key = "${env("CLAUDE_API_KEY")}" # ERROR: Invalid sensitive expression
}
provider "web" {
  token = "Bearer ${env("WEB_TOKEN")}" # ERROR: Invalid sensitive expression
}
provider "search" {
  api_key = "sk-live-0123456789" # ERROR: Invalid sensitive expression
}
provider "mail" {
  smtp_password = env(password_var) # ERROR: Invalid sensitive expression
}
provider "chat" {
  client_secret = env("A", "B") # ERROR: Invalid sensitive expression
}
provider "vault" {
  token = coalesce(env("VAULT_TOKEN"), "dev") # ERROR: Invalid sensitive expression
}
provider "blob" {
  access_key = 42 # ERROR: Invalid sensitive expression
}
