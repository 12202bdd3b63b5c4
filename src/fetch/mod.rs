//! HTTP to the forum: cookies, login, politeness, retries.
