//! Which images a model is sent, as Claw-Eval's loop decides before every call (its
//! `MediaConfig`: `image_keep_recent_turns` 3, `max_conversation_images` 256): the images of
//! every message before the third most recent assistant message are left out (their text
//! stays), then, past 256 images in all, the oldest after the task prompt become a placeholder.
//! The conversation itself (and so the trace) keeps every image.

use std::borrow::Cow;

use crate::conversation::{Block, Conversation, Role};

/// Assistant turns whose images (and those after them) the model still sees.
pub const KEEP_RECENT_TURNS: usize = 3;

/// Images sent in one request at most.
pub const MAX_CONVERSATION_IMAGES: usize = 256;

/// What an image dropped by [`MAX_CONVERSATION_IMAGES`] becomes.
pub const DROPPED_IMAGE: &str = "[Image dropped: conversation image limit reached]";

/// The conversation as the model is sent it (borrowed when no image is left out).
pub fn visible(conversation: &Conversation) -> Cow<'_, Conversation> {
    let assistants: Vec<usize> = (conversation.messages.iter().enumerate())
        .filter(|(_, m)| m.role == Role::Assistant)
        .map(|(i, _)| i)
        .collect();
    let cutoff = match assistants.len().checked_sub(KEEP_RECENT_TURNS) {
        Some(n) if n > 0 => assistants[n],
        _ => 0,
    };
    let old_images = conversation.messages[..cutoff]
        .iter()
        .map(|m| images_in(&m.content))
        .sum::<usize>();
    let total = conversation
        .messages
        .iter()
        .map(|m| images_in(&m.content))
        .sum::<usize>()
        - old_images;
    if old_images == 0 && total <= MAX_CONVERSATION_IMAGES {
        return Cow::Borrowed(conversation);
    }
    let mut view = conversation.clone();
    for message in &mut view.messages[..cutoff] {
        strip(&mut message.content);
    }
    if total > MAX_CONVERSATION_IMAGES {
        // The task prompt's images are protected; the budget left goes to the latest others.
        let protected = view.messages.first().map_or(0, |m| images_in(&m.content));
        let allowed = MAX_CONVERSATION_IMAGES.saturating_sub(protected);
        let mut to_drop = (total - protected).saturating_sub(allowed);
        for message in view.messages.iter_mut().skip(1) {
            drop_oldest(&mut message.content, &mut to_drop);
        }
    }
    Cow::Owned(view)
}

/// Images in `blocks`, those inside tool results included.
fn images_in(blocks: &[Block]) -> usize {
    blocks
        .iter()
        .map(|b| match b {
            Block::Image { .. } => 1,
            Block::ToolResult { content, .. } => images_in(content),
            _ => 0,
        })
        .sum()
}

/// `blocks` without images, those inside tool results included.
fn strip(blocks: &mut Vec<Block>) {
    blocks.retain(|b| !matches!(b, Block::Image { .. }));
    for b in blocks {
        if let Block::ToolResult { content, .. } = b {
            strip(content);
        }
    }
}

/// The first `*left` images of `blocks` replaced by [`DROPPED_IMAGE`].
fn drop_oldest(blocks: &mut [Block], left: &mut usize) {
    for b in blocks {
        if *left == 0 {
            return;
        }
        match b {
            Block::Image { .. } => {
                *b = Block::text(DROPPED_IMAGE);
                *left -= 1;
            }
            Block::ToolResult { content, .. } => drop_oldest(content, left),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conversation::Message;

    fn image(n: usize) -> Block {
        Block::Image {
            media_type: "image/jpeg".into(),
            data: format!("img{n}"),
        }
    }

    fn tool_result(images: std::ops::Range<usize>) -> Message {
        let mut content = vec![Block::text("frames")];
        content.extend(images.map(image));
        Message {
            role: Role::User,
            content: vec![Block::ToolResult {
                tool_use_id: "c".into(),
                content,
                is_error: false,
            }],
        }
    }

    fn conversation(turns: usize, per_turn: usize) -> Conversation {
        let mut messages = vec![Message {
            role: Role::User,
            content: vec![Block::text("task"), image(9999)],
        }];
        for t in 0..turns {
            messages.push(Message::assistant("call"));
            messages.push(tool_result(t * per_turn..(t + 1) * per_turn));
        }
        Conversation {
            messages,
            ..Conversation::default()
        }
    }

    fn images(c: &Conversation) -> Vec<String> {
        fn walk(blocks: &[Block], out: &mut Vec<String>) {
            for b in blocks {
                match b {
                    Block::Image { data, .. } => out.push(data.clone()),
                    Block::ToolResult { content, .. } => walk(content, out),
                    _ => {}
                }
            }
        }
        let mut out = Vec::new();
        for m in &c.messages {
            walk(&m.content, &mut out);
        }
        out
    }

    #[test]
    fn three_turns_keep_their_images_and_nothing_is_copied() {
        let c = conversation(3, 2);
        assert!(matches!(visible(&c), Cow::Borrowed(_)));
    }

    #[test]
    fn images_before_the_third_latest_turn_are_left_out_text_kept() {
        let c = conversation(5, 2);
        let v = visible(&c);
        // Turns 0 and 1 (and the prompt before them) lose their images; 2, 3 and 4 keep theirs.
        assert_eq!(images(&v), ["img4", "img5", "img6", "img7", "img8", "img9"]);
        assert_eq!(v.messages.len(), c.messages.len());
        assert_eq!(v.messages[2].text(), c.messages[2].text());
        assert_eq!(images(&c).len(), 11, "the conversation keeps every image");
    }

    #[test]
    fn past_the_budget_the_oldest_become_placeholders_the_prompt_s_kept() {
        let c = conversation(3, 100);
        let v = visible(&c);
        let shown = images(&v);
        assert_eq!(shown.len(), MAX_CONVERSATION_IMAGES);
        assert_eq!(shown[0], "img9999");
        assert_eq!(shown[1], "img45", "the 44 oldest after the prompt dropped");
        let Block::ToolResult { content, .. } = &v.messages[2].content[0] else {
            panic!()
        };
        assert_eq!(content[1], Block::text(DROPPED_IMAGE));
    }
}
