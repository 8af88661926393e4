//! A tool's questions in a session the model loop runs: `sample` asks the loop's own model (one
//! request, no tools), so a tool written against `CallInfo::sample` works the same under MCP
//! and here; `elicit` has nobody to ask (the loop runs unattended) and says so.

use std::sync::Arc;

use cy_tools::BoxFuture;
use cy_tools::call::{AskError, Asker, Content, ElicitForm, Elicited, SampleRequest, Sampled};
use cy_tools::catalog::Role;
use tracing::Instrument;

use crate::config::AgentConfig;
use crate::exchange::{Answered, Target, exchange};
use crate::http::{BaseUrl, Client};
use crate::provider::{Provider, RequestParts};
use crate::spans;
use crate::transcript::Message;
use crate::turn_budget::TurnBudget;

/// Asks the loop's model on behalf of a tool the loop called.
pub(crate) struct LoopAsker {
    pub(crate) provider: Arc<dyn Provider>,
    pub(crate) client: Client,
    pub(crate) base: BaseUrl,
    pub(crate) config: AgentConfig,
}

impl LoopAsker {
    async fn sample(&self, request: &SampleRequest) -> Result<Sampled, AskError> {
        let messages: Vec<Message> = request
            .messages
            .iter()
            .map(|m| {
                let mut text = String::new();
                m.content.write_text(&mut text);
                match m.role {
                    Role::User => Message::User(text),
                    Role::Assistant => Message::Assistant {
                        text,
                        calls: Vec::new(),
                        server_blocks: Vec::new(),
                    },
                }
            })
            .collect();
        let config = &self.config;
        let max_tokens = u64::from(request.max_tokens)
            .min(config.max_output_tokens)
            .max(1);
        let body = self.provider.request(&RequestParts {
            model: &config.model,
            system: request.system_prompt.as_deref(),
            messages: &messages,
            tools: &[],
            max_tokens,
            stream: false,
            official: config.is_official(),
        });
        let target = Target {
            client: &self.client,
            base: &self.base,
            key: config.api_key.as_deref(),
            retry: config.retry,
            strict: false,
            tool_search: false,
        };
        let budget = TurnBudget {
            bytes: config.limits.max_turn_bytes,
            tokens: max_tokens,
        };
        // A child of the asking tool call's span.
        let span = spans::chat_span(&tracing::Span::current(), config, &self.base, max_tokens);
        let answered = exchange(
            self.provider.as_ref(),
            &target,
            &body,
            false,
            budget,
            &mut |_| {},
        )
        .instrument(span.clone())
        .await
        .map_err(|err| {
            spans::record_error(&span, &err);
            AskError::new(format!("the model loop's model could not be asked: {err}"))
        })?;
        let reply = match answered {
            Answered::Reply(reply) => {
                spans::record_reply(&span, &reply);
                reply
            }
            Answered::Stopped(overrun) => {
                return Err(AskError::new(format!(
                    "the model loop's model answered past this request's bounds ({overrun:?}); ask for less"
                )));
            }
        };
        Ok(Sampled {
            role: Role::Assistant,
            content: Content::text(reply.text),
            model: reply.model.unwrap_or_else(|| config.model.clone()),
            stop_reason: reply.stop_reason,
        })
    }
}

impl Asker for LoopAsker {
    fn sample<'a>(
        &'a self,
        request: &'a SampleRequest,
    ) -> BoxFuture<'a, Result<Sampled, AskError>> {
        Box::pin(LoopAsker::sample(self, request))
    }

    fn elicit<'a>(
        &'a self,
        _message: &'a str,
        _form: &'a ElicitForm,
    ) -> BoxFuture<'a, Result<Elicited, AskError>> {
        Box::pin(std::future::ready(Err(AskError::new(
            "nobody can be asked: this session is run by the model loop, which has no user to answer a form; have the tool do without, or run it from an MCP client that offers elicitation",
        ))))
    }
}
