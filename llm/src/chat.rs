//! Chat: a conversation rendered by the checkpoint's chat template (`tokenizer_config.json`'s
//! `chat_template`, Jinja, rendered by `minijinja` with Python's string methods from `minijinja-contrib`),
//! each turn appended to the conversation's cached rows (`Model::extend`) rather than prefilled again.
//!
//! A turn renders the whole conversation and tokenizes it; the tokens it shares with what the cache holds
//! (the last rendering and the tokens generated since) stay, the rest is appended ([`continuation`]). Where
//! the template renders an earlier reply otherwise than it was generated (a trimmed space, say), the cache
//! is cut back to the tokens both agree on.
use std::path::Path;

use minijinja::{Environment, Error, ErrorKind, value::Serde};

/// One message of a conversation.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Message {
    /// `system`, `user` or `assistant`.
    pub role: String,
    /// Its text.
    pub content: String,
}

impl Message {
    /// A message of `role` saying `content`.
    pub fn new(role: &str, content: &str) -> Message {
        Message { role: role.to_string(), content: content.to_string() }
    }
}

/// A checkpoint's chat template with the special tokens it refers to.
pub struct Template {
    env: Environment<'static>,
    /// The beginning- and end-of-sequence tokens' text (`bos_token`, `eos_token` in the template).
    pub bos: String,
    pub eos: String,
}

/// A token's text in `tokenizer_config.json`: a string, or an object with `content` (an "added token").
fn token_text(v: Option<&serde_json::Value>) -> String {
    match v {
        Some(serde_json::Value::String(s)) => s.clone(),
        Some(serde_json::Value::Object(o)) => o.get("content").and_then(|c| c.as_str()).unwrap_or_default().to_string(),
        _ => String::new(),
    }
}

/// Today's date as `strftime` would write it for the directives chat templates use (`%d`, `%b`, `%B`,
/// `%Y`, `%m`, `%y`, `%%`; UTC), from the system clock.
fn strftime_now(format: String) -> String {
    let days = (kernel_lab::runtime::timing::unix_ms_now() / 86_400_000) as i64;
    let (year, month, day) = kernel_lab::runtime::timing::civil_from_days(days);
    const MONTHS: [&str; 12] = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
    let name = MONTHS[(month - 1) as usize];
    let mut out = String::new();
    let mut it = format.chars();
    while let Some(c) = it.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        match it.next() {
            Some('d') => out += &format!("{day:02}"),
            Some('m') => out += &format!("{month:02}"),
            Some('Y') => out += &year.to_string(),
            Some('y') => out += &format!("{:02}", year % 100),
            Some('b') => out += &name[..3],
            Some('B') => out += name,
            Some('%') => out.push('%'),
            Some(other) => {
                out.push('%');
                out.push(other);
            }
            None => out.push('%'),
        }
    }
    out
}

impl Template {
    /// The template of `tokenizer_config.json`'s text (`origin` names it in errors): `chat_template` a
    /// string, or a list of `{name, template}` of which the one named `default` (else the first).
    pub fn from_config(text: &str, origin: &str) -> Result<Template, String> {
        let v: serde_json::Value = serde_json::from_str(text).map_err(|e| format!("{origin}: {e}"))?;
        let source = match v.get("chat_template") {
            Some(serde_json::Value::String(s)) => s.clone(),
            Some(serde_json::Value::Array(list)) => {
                let named = |n: &str| list.iter().find(|t| t.get("name").and_then(|x| x.as_str()) == Some(n));
                named("default").or(list.first()).and_then(|t| t.get("template")).and_then(|t| t.as_str())
                    .ok_or_else(|| format!("{origin}: `chat_template` lists no template"))?.to_string()
            }
            Some(_) => return Err(format!("{origin}: `chat_template` is neither a string nor a list of named templates")),
            None => return Err(format!("{origin}: no `chat_template` (a base model has none; give the prompt with --prompt instead)")),
        };
        Template::new(&source, token_text(v.get("bos_token")), token_text(v.get("eos_token"))).map_err(|e| format!("{origin}: the chat template: {e}"))
    }

    /// The template of `dir/tokenizer_config.json`.
    pub fn load(dir: &Path) -> Result<Template, String> {
        let path = dir.join("tokenizer_config.json");
        let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        Template::from_config(&text, &path.display().to_string())
    }

    /// A template of Jinja `source` with those special tokens' text. Templates may call
    /// `raise_exception(msg)` (an error naming `msg`) and `strftime_now(fmt)`.
    pub fn new(source: &str, bos: String, eos: String) -> Result<Template, Error> {
        let mut env = Environment::new();
        env.set_unknown_method_callback(minijinja_contrib::pycompat::unknown_method_callback);
        env.add_function("raise_exception", |msg: String| -> Result<String, Error> { Err(Error::new(ErrorKind::InvalidOperation, msg)) });
        env.add_function("strftime_now", strftime_now);
        env.add_template_owned("chat", source.to_string())?;
        Ok(Template { env, bos, eos })
    }

    /// The conversation as the model reads it; with `add_generation_prompt`, followed by what opens the
    /// assistant's reply.
    pub fn render(&self, messages: &[Message], add_generation_prompt: bool) -> Result<String, String> {
        let t = self.env.get_template("chat").map_err(|e| e.to_string())?;
        t.render(minijinja::context! { messages => Serde(messages), bos_token => self.bos.clone(), eos_token => self.eos.clone(),
                                       add_generation_prompt => add_generation_prompt })
            .map_err(|e| format!("rendering the chat template: {e}"))
    }
}

/// How a conversation's tokens `new` continue the `cached` ones: how many cached tokens stay (those both
/// agree on, but at least one token is left to append, whose logits give the next token) and the tokens
/// to append after them.
pub fn continuation<'a>(cached: &[u32], new: &'a [u32]) -> (usize, &'a [u32]) {
    let same = cached.iter().zip(new).take_while(|(a, b)| a == b).count();
    let keep = same.min(new.len().saturating_sub(1));
    (keep, &new[keep..])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A template in the style of the instruct checkpoints': headers around each message, the text trimmed,
    /// the beginning token once, a system message only first, the reply's header on request.
    const TEMPLATE: &str = "{{ bos_token }}{% for m in messages %}{% if m['role'] == 'system' and not loop.first %}\
        {{ raise_exception('a system message comes first') }}{% endif %}<|{{ m['role'] }}|>\n{{ m['content'] | trim }}<|end|>\n\
        {% endfor %}{% if add_generation_prompt %}<|assistant|>\n{% endif %}";

    fn config(template: &str) -> String {
        serde_json::json!({"bos_token": {"content": "<s>", "lstrip": false}, "eos_token": "</s>", "chat_template": template}).to_string()
    }

    #[test]
    fn a_conversation_renders_through_the_template() {
        let t = Template::from_config(&config(TEMPLATE), "cfg").unwrap();
        assert_eq!((t.bos.as_str(), t.eos.as_str()), ("<s>", "</s>"));
        let msgs = [Message::new("system", "Be brief."), Message::new("user", "  Hi there \n")];
        assert_eq!(t.render(&msgs, true).unwrap(), "<s><|system|>\nBe brief.<|end|>\n<|user|>\nHi there<|end|>\n<|assistant|>\n");
        assert_eq!(t.render(&msgs[1..], false).unwrap(), "<s><|user|>\nHi there<|end|>\n");
        // raise_exception reaches the caller, naming the template's reason.
        let e = t.render(&[Message::new("user", "a"), Message::new("system", "b")], true).unwrap_err();
        assert!(e.contains("a system message comes first"), "{e}");
        // Python's string methods, a named template among several, strftime_now.
        let py = "{% for m in messages %}{{ m.content.strip().upper() }}|{% endfor %}{{ strftime_now('%Y') | length }}";
        let listed = serde_json::json!({"chat_template": [{"name": "tool_use", "template": "x"}, {"name": "default", "template": py}]}).to_string();
        let t = Template::from_config(&listed, "cfg").unwrap();
        assert_eq!(t.render(&[Message::new("user", " ab ")], false).unwrap(), "AB|4");
    }

    #[test]
    fn a_config_without_a_usable_template_is_refused_naming_it() {
        let e = Template::from_config(r#"{"bos_token": "<s>"}"#, "dir/tokenizer_config.json").err().unwrap();
        assert!(e.contains("dir/tokenizer_config.json: no `chat_template`"), "{e}");
        let e = Template::from_config(&config("{% for %}"), "cfg").err().unwrap();
        assert!(e.starts_with("cfg: the chat template:"), "{e}");
        assert!(Template::from_config("{not json", "cfg").is_err());
        assert!(Template::from_config(r#"{"chat_template": 3}"#, "cfg").is_err());
    }

    #[test]
    fn a_turn_appends_what_the_cache_does_not_hold() {
        // The next turn after the cached one: only the new tokens.
        assert_eq!(continuation(&[1, 2, 3], &[1, 2, 3, 4, 5]), (3, &[4, 5][..]));
        // The template rendered the last reply otherwise: cut back to where both agree.
        assert_eq!(continuation(&[1, 2, 3, 9], &[1, 2, 3, 4, 5]), (3, &[4, 5][..]));
        // Nothing new: the last token again, for its logits.
        assert_eq!(continuation(&[1, 2, 3], &[1, 2, 3]), (2, &[3][..]));
        // A fresh conversation.
        assert_eq!(continuation(&[], &[7, 8]), (0, &[7, 8][..]));
        assert_eq!(continuation(&[5], &[7]), (0, &[7][..]));
    }

    #[test]
    fn strftime_now_writes_the_common_directives() {
        let s = strftime_now("%d %b %Y|%B|%m|%y|%%|%q".into());
        let f: Vec<&str> = s.split('|').collect();
        assert_eq!(f.len(), 6, "{s}");
        let (d, y) = (&f[0][..2], &f[0][7..]);
        assert!(d.parse::<u32>().is_ok_and(|d| (1..=31).contains(&d)) && y.parse::<u32>().is_ok_and(|y| y >= 2024), "{s}");
        assert!(f[1].starts_with(&f[0][3..6]) && f[2].parse::<u32>().is_ok_and(|m| (1..=12).contains(&m)), "{s}");
        assert_eq!((f[3], f[4], f[5]), (&y[2..], "%", "%q"));
    }
}
