"""PlanBench-XL's request texts: business requests in paraphrase, never naming a datatype.

The release's queries read like tickets from a team that holds one or two references of a
purchase and needs a linked field; they describe each field in words and never spell its
canonical name. `request` writes such a text per task: a seeded opening (who asks and why), the
references the team holds (each described by a phrasing drawn from `PHRASES`, written from what
the field means rather than from the aliases the tools are named with, so copying the request's
words into a retrieval is not an exact lookup), and the question. All wording is ours.
"""

from __future__ import annotations

import hashlib
import random
from typing import Any

#: datatype -> descriptions a person would use (noun phrases, with their article).
PHRASES: dict[str, tuple[str, ...]] = {
    "user_id": (
        "the shopper's login handle in our system",
        "the internal key of the customer's profile",
    ),
    "user_name": (
        "the full name of the person who owns the account",
        "what the customer is called on their profile",
    ),
    "email": (
        "the address we send the customer's mail to",
        "the mailbox the shopper signed up with",
    ),
    "phone": (
        "the number we would call the customer on",
        "the telephone contact stored for the shopper",
    ),
    "default_address": (
        "where the customer's parcels go unless they say otherwise",
        "the street address saved as the shopper's usual destination",
    ),
    "default_payment_method_id": (
        "the key of the card or wallet the shopper normally pays with",
        "the reference of the customer's preferred way to pay",
    ),
    "product_id": (
        "the key of the catalogue entry, whatever the colour or size",
        "the reference of the listing the item belongs to",
    ),
    "product_name": ("what the listing is titled in the shop", "the name shown on the item's page"),
    "base_price": (
        "the sticker price before any quote or discount",
        "what the listing costs at full price",
    ),
    "variant_id": (
        "the stock-keeping key of the exact colour and size",
        "the reference of the specific version that can be bought",
    ),
    "color": ("the colour of that version", "which colourway was picked"),
    "size": ("the size of that version", "which fit was picked"),
    "order_draft_id": (
        "the key of the unfinished basket before checkout",
        "the reference of the draft the shopper was building",
    ),
    "draft_status": (
        "where that unfinished basket stands",
        "the state of the draft before checkout",
    ),
    "updated_time": (
        "when the draft was last touched",
        "the moment the unfinished basket last changed",
    ),
    "order_draft_item_id": (
        "the key of one line in the unfinished basket",
        "the reference of a single line of the draft",
    ),
    "draft_quantity": (
        "how many units sat on that draft line",
        "the count of items the draft line held",
    ),
    "proposed_unit_price": (
        "the per-unit price the draft suggested",
        "what one unit was going to cost in the draft",
    ),
    "pricing_snapshot_id": (
        "the key of the frozen price quote",
        "the reference of the saved quote taken at checkout time",
    ),
    "snapshot_status": ("whether that saved quote is still good", "the state of the frozen quote"),
    "quoted_total_amount": (
        "the grand total the quote promised",
        "how much the whole quote came to",
    ),
    "order_id": ("the key of the order once it was placed", "the reference the checkout produced"),
    "order_status": ("where the placed order stands now", "the current state of the purchase"),
    "created_time": ("when the purchase was placed", "the moment the checkout went through"),
    "order_item_id": (
        "the key of one line of the placed order",
        "the reference of a single purchased line",
    ),
    "purchased_quantity": (
        "how many units were bought on that line",
        "the count the customer paid for on that line",
    ),
    "unit_price": ("what one unit actually cost on that line", "the per-item price charged"),
    "payment_method_id": (
        "the key of the card or wallet this purchase was charged to",
        "the reference of the instrument used for this order",
    ),
    "payment_method_type": (
        "what kind of instrument was charged",
        "whether it was a card, a wallet or something else",
    ),
    "account_number": (
        "the masked digits of the account the money came from",
        "the hidden-digit reference of the paying account",
    ),
    "payment_intent_id": (
        "the key of the checkout's charge attempt",
        "the reference of the payment session opened at checkout",
    ),
    "intent_status": (
        "where that charge attempt stands",
        "the state of the checkout's payment session",
    ),
    "auth_id": (
        "the key of the card approval",
        "the reference the processor gave the hold on the card",
    ),
    "auth_status": ("whether the card approval went through", "the state of the hold on the card"),
    "auth_code": (
        "the approval code the processor sent back",
        "the short code that confirmed the card hold",
    ),
    "payment_id": ("the key of the captured payment", "the reference of the money actually taken"),
    "payment_status": ("where the captured payment stands", "the state of the money taken"),
    "payment_time": ("when the money was actually taken", "the moment the charge was captured"),
    "warehouse_request_id": (
        "the key of the picking job sent to the warehouse",
        "the reference of the fulfilment ticket",
    ),
    "warehouse_request_status": (
        "where the picking job stands",
        "the state of the fulfilment ticket",
    ),
    "warehouse_request_time": (
        "when the warehouse was asked to pick it",
        "the moment the fulfilment ticket was raised",
    ),
    "shipment_id": (
        "the key of the parcel that left the building",
        "the reference of the consignment",
    ),
    "shipment_status": ("where the parcel is in transit", "the state of the consignment"),
    "tracking_number": (
        "the carrier's code for following the parcel",
        "the number the courier tracks the box with",
    ),
    "delivery_attempt_id": (
        "the key of a courier's try at the door",
        "the reference of one drop-off attempt",
    ),
    "attempt_status": (
        "how the courier's try at the door went",
        "the outcome of that drop-off attempt",
    ),
    "attempt_time": ("when the courier came to the door", "the moment of that drop-off attempt"),
    "return_request_id": (
        "the key of the customer's request to send it back",
        "the reference of the send-back case",
    ),
    "return_status": (
        "where the send-back case stands",
        "the state of the customer's request to send it back",
    ),
    "requested_time": (
        "when the customer asked to send it back",
        "the moment the send-back case was opened",
    ),
    "return_audit_id": (
        "the key of the internal check on the send-back",
        "the reference of the review done on the returned goods",
    ),
    "audit_status": (
        "the verdict of the internal check on the send-back",
        "where the review of the returned goods stands",
    ),
    "refund_id": ("the key of the money paid back", "the reference of the repayment"),
    "refund_status": ("where the repayment stands", "the state of the money paid back"),
    "refund_amount": ("how much was paid back", "the sum returned to the customer"),
    "refund_time": ("when the money was paid back", "the moment the repayment went out"),
}

OPENINGS = (
    "The billing desk is reconciling a charge and needs one linked detail from the same case.",
    "A support agent is answering a customer's ticket and is missing one field.",
    "Our fulfilment team is chasing a problem with an order and needs a related record.",
    "Finance is closing an audit trail and wants one more fact about the same purchase.",
    "The returns desk is reviewing a case and has a single gap left to fill.",
)

SINGLE = (
    "All the ticket gives us is {a} `{va}`.",
    "The only thing we were handed is {a}: `{va}`.",
    "We know just one thing about it, {a}, which is `{va}`.",
)

PAIR = (
    "We were given {a} `{va}` and {b} `{vb}`, both from the same purchase.",
    "The ticket lists {a} (`{va}`) and {b} (`{vb}`) for this purchase.",
    "Two details are on file: {a} `{va}`, and {b} `{vb}`.",
)

ASKS = (
    "I need {t} for that purchase.",
    "Please find {t} tied to it.",
    "Could you look up {t} on the same case?",
)


def phrase(datatype: str, rng: random.Random) -> str:
    """One description of a datatype (a datatype without one: its words, in a generic frame)."""
    options = PHRASES.get(datatype)
    if not options:
        return "the record's " + datatype.replace("_", " ")
    return options[rng.randrange(len(options))]


def request(ctx: Any, inputs: Any, target: Any, values: Any) -> str:
    """The request of one task (`planbench_request(ins, target, values)` in `.scn`): seeded by
    the compile seed, the inputs and the target."""
    ins = [str(i) for i in inputs]
    given = [str(values.get(i) if hasattr(values, "get") else values[i]) for i in ins]
    key = "\x1f".join([str(getattr(ctx, "seed", 0)), *ins, *given, str(target)])
    rng = random.Random(int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big"))
    opening = OPENINGS[rng.randrange(len(OPENINGS))]
    if len(ins) == 1:
        held = SINGLE[rng.randrange(len(SINGLE))].format(a=phrase(ins[0], rng), va=given[0])
    else:
        frame = PAIR[rng.randrange(len(PAIR))]
        held = frame.format(a=phrase(ins[0], rng), va=given[0], b=phrase(ins[1], rng), vb=given[1])
    ask = ASKS[rng.randrange(len(ASKS))].format(t=phrase(str(target), rng))
    return " ".join([opening, held, ask])
