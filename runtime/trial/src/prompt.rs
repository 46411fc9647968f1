//! The task prompt as the conversation's first user message, with its attachments.

use base64::Engine as _;
use clawrun_agents::{Block, Message, Role};

use super::setup::TaskEnv;

/// The task prompt as the first user message: its text, then its attachments (images as
/// image blocks, text files inlined, anything else named).
pub fn prompt_message(task: &TaskEnv) -> Message {
    let t = &task.loaded.task;
    let mut content = vec![Block::text(t.prompt.text.clone())];
    for path in &t.prompt.attachments {
        let media = media_type(path);
        match task.loaded.read_task_file(path) {
            Ok(bytes) if media.is_some() => content.push(Block::Image {
                media_type: media.unwrap_or_default().to_string(),
                data: base64::engine::general_purpose::STANDARD.encode(&bytes),
            }),
            Ok(bytes) => match String::from_utf8(bytes) {
                Ok(text) => content.push(Block::text(format!(
                    "<attachment path=\"{path}\">\n{text}\n</attachment>"
                ))),
                Err(_) => content.push(Block::text(format!(
                    "[attachment {path}: binary file, not shown]"
                ))),
            },
            Err(e) => content.push(Block::text(format!(
                "[attachment {path} could not be read: {e}]"
            ))),
        }
    }
    Message {
        role: Role::User,
        content,
    }
}

/// The image media type of `path`, if it names an image.
pub(crate) fn media_type(path: &str) -> Option<&'static str> {
    let ext = path.rsplit('.').next()?.to_ascii_lowercase();
    Some(match ext.as_str() {
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        _ => return None,
    })
}
