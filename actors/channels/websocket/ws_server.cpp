// The WebSocket server: one io thread owns every socket and the connection
// table; API calls go to the channel and their answers are posted back.
// Boost.Beast TUs are slow to compile, so Beast stays in two files.
#include "actors/channels/websocket/ws_server_core.hpp"

#include "actors/channels/http/asio_listen.hpp"
#include "actors/common/thread_name.hpp"

namespace nb::ws {

namespace detail {

void ws_conn::start(request req) {
  upgrade = std::move(req);
  ws.set_option(
    websocket::stream_base::timeout::suggested(beast::role_type::server));
  ws.read_message_max(owner->cfg.max_message_bytes);
  ws.async_accept(upgrade, [self = shared_from_this()](beast::error_code ec) {
    if (ec)
      return;
    self->owner->conns.insert(self);
    ++self->owner->open;
    self->chats.insert(self->chat);
    self->push(ready_event(self->chat, self->client), nullptr, false);
    self->read();
  });
}

void ws_conn::read() {
  ws.async_read(buf, [self = shared_from_this()](beast::error_code ec,
                                                 size_t) {
    if (ec) {
      self->close();
      return;
    }
    auto size = self->buf.size();
    if (!self->ws.got_text()) {
      // Binary frames carry no message here: the whole frame is refused.
      self->buf.consume(size);
      self->push(error_event("binary frames are not accepted: send each "
                             "message as a JSON text frame (files go by "
                             "upload)"),
                 nullptr, false);
    } else {
      // A text frame's UTF-8 was checked by Beast as it arrived (invalid
      // bytes close the connection with 1007); the message is taken whole.
      auto text = beast::buffers_to_string(self->buf.data());
      self->buf.consume(size);
      self->on_frame(text);
    }
    if (size > 65536) {
      self->buf.shrink_to_fit();
      self->owner->trim_memory();
    }
    self->read();
  });
}

void ws_conn::on_frame(const std::string& text) {
  auto parsed = parse_client_frame(text);
  if (auto* err = std::get_if<std::string>(&parsed)) {
    push(error_event(*err), nullptr, false);
    return;
  }
  auto& cmd = std::get<client_command>(parsed);
  switch (cmd.kind) {
    case client_command::new_chat:
      chat = owner->random_id("web-");
      chats.insert(chat);
      push(attached_event(chat), nullptr, false);
      return;
    case client_command::attach:
      chat = cmd.chat_id;
      chats.insert(chat);
      push(attached_event(chat), nullptr, false);
      if (owner->hooks.on_attached)
        owner->hooks.on_attached(client, chat, agent);
      return;
    case client_command::message: {
      auto target = cmd.chat_id.empty() ? chat : cmd.chat_id;
      chats.insert(target); // a message attaches to its chat
      if (owner->hooks.on_message)
        owner->hooks.on_message(client, target, cmd.content, agent,
                                cmd.cli_apps);
      return;
    }
  }
}

void ws_conn::push(std::string text, std::shared_ptr<delivery> done,
                   bool last) {
  if (closed) {
    // Dropped mid-delivery: this connection's share is settled as not
    // delivered, so the delivery still completes.
    if (done && last)
      owner->settle(done);
    return;
  }
  queued_bytes += text.size();
  outq.push_back({std::move(text), std::move(done), last});
  if (queued_bytes > owner->cfg.max_queued_bytes) {
    // It stopped reading: what waits for it counts as not delivered (the
    // manager may retry elsewhere), and the memory goes back.
    close();
    owner->trim_memory();
    return;
  }
  if (!writing)
    write_next();
}

void ws_conn::write_next() {
  if (closed || outq.empty()) {
    writing = false;
    return;
  }
  writing = true;
  ws.text(true);
  ws.async_write(net::buffer(outq.front().text),
                 [self = shared_from_this()](beast::error_code ec, size_t) {
                   if (self->closed)
                     return; // close() already settled the queue
                   if (ec) {
                     self->close();
                     return;
                   }
                   auto f = std::move(self->outq.front());
                   self->outq.pop_front();
                   self->queued_bytes -= f.text.size();
                   if (f.done && f.last) {
                     ++f.done->delivered;
                     self->owner->settle(f.done);
                   }
                   self->write_next();
                 });
}

void ws_conn::close() {
  if (closed)
    return;
  closed = true;
  auto self = shared_from_this();
  owner->conns.erase(self);
  --owner->open;
  // Deliveries still queued here count as not delivered on this connection.
  for (auto& f : outq)
    if (f.done && f.last)
      owner->settle(f.done);
  outq.clear();
  outq.shrink_to_fit();
  queued_bytes = 0;
  beast::error_code ec;
  beast::get_lowest_layer(ws).socket().close(ec);
}

} // namespace detail

using namespace detail;

struct server::impl {
  std::shared_ptr<core> c = std::make_shared<core>();
  std::thread io;
  std::atomic<bool> ran_out{false};
  uint16_t port = 0;
  bool stopped = false;
};

server::server(server_config cfg, server_hooks hooks)
  : impl_(std::make_shared<impl>()) {
  auto& c = *impl_->c;
  c.cfg = std::move(cfg);
  c.hooks = std::move(hooks);
  impl_->port = listen_on(c.acceptor, c.cfg.host, c.cfg.port);
  c.accept();
  impl_->io = std::thread([i = impl_] {
    name_thread("nb.ws-io");
    i->c->ioc.run();
    i->ran_out = true;
  });
}

server::~server() {
  stop();
}

void server::stop() {
  if (impl_->stopped)
    return;
  impl_->stopped = true;
  net::post(impl_->c->ioc, [c = impl_->c] { c->shutdown(); });
  // Closed sockets finish their handlers and run() returns.
  end_io_thread(impl_->c->ioc, impl_->io, impl_->ran_out);
}

uint16_t server::port() const {
  return impl_->port;
}

void server::deliver(uint64_t id, std::string chat,
                     std::vector<std::string> frames) {
  net::post(impl_->c->ioc, [c = impl_->c, id, chat = std::move(chat),
                            frames = std::move(frames)]() mutable {
    c->deliver(id, chat, frames);
  });
}

void server::answer_api(uint64_t id, api_reply reply) {
  net::post(impl_->c->ioc,
            [c = impl_->c, id, reply = std::move(reply)]() mutable {
              auto i = c->api_waiting.find(id);
              if (i == c->api_waiting.end())
                return;
              auto conn = std::move(i->second);
              c->api_waiting.erase(i);
              conn->respond(static_cast<http::status>(reply.status),
                            std::move(reply.body), "application/json");
            });
}

size_t server::connections() const {
  return impl_->c->open.load();
}

} // namespace nb::ws
