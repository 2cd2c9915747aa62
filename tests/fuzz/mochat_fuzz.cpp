// Mochat's Socket.IO frames: any text as one Engine.IO packet, its Socket.IO
// packet (written back, it must read the same), an open packet's handshake,
// and an event's argument as a watch payload, a message.add and the notify
// events.
#include "actors/channels/mochat/mochat_event.hpp"
#include "actors/channels/mochat/mochat_sorter.hpp"
#include "actors/channels/mochat/socketio_packet.hpp"
#include "tests/fuzz/fuzz_input.hpp"

#include <cstdlib>

namespace sio = nb::mochat::sio;

NB_FUZZ_ENTRY(mochat) {
  auto frame = nb::fuzz::text(data, size);
  std::string why;
  auto eio = sio::read_eio(frame, why);
  if (!eio)
    return 0;
  if (eio->type == sio::eio_type::open)
    (void)sio::read_handshake(eio->data, why);
  if (eio->type != sio::eio_type::message)
    return 0;
  auto p = sio::read_sio(eio->data, why);
  if (!p)
    return 0;
  auto again = sio::read_sio(sio::write_sio(*p), why);
  if (!again || again->type != p->type || again->nsp != p->nsp
      || again->id != p->id || again->data != p->data)
    std::abort(); // what we write must read back the same
  nb::mochat::mochat_config cfg;
  cfg.agent_user_id = "agent-1";
  cfg.require_in_groups = true;
  const auto& arg = sio::first_arg(*p);
  if (auto b = nb::mochat::read_watch(arg, why)) {
    nb::mochat::sorter s{cfg};
    nb::mochat::ready_batch out;
    for (const auto& ev : b->events)
      if (auto m = nb::mochat::read_message_add(
            cfg, b->target_id, nb::mochat::target_kind::panel, ev, why))
        (void)s.take(b->target_id, nb::mochat::target_kind::panel,
                     std::move(*m), p->id, nb::mochat::sorter::clock::now(),
                     out);
  }
  (void)nb::mochat::read_notify_message(arg);
  (void)nb::mochat::read_inbox_append(arg);
  if (arg.is_string())
    (void)nb::mochat::resolve_target(arg.get<std::string>());
  return 0;
}
