// The page of `briscola play`: starts a table, shows what the person's seat sees, sends
// its decisions, animates the strategies' replies at the chosen pace, and replays the
// whole deal once it is over. Everything it shows comes from the server's answers:
// the server sends no card this seat may not see until the deal ends.
"use strict";

const SUITS = { D: "Denari", C: "Coppe", S: "Spade", B: "Bastoni" };
const FACES = ["", "Asso", "Due", "Tre", "Quattro", "Cinque", "Sei", "Sette", "Fante", "Cavallo", "Re"];
let table = null;     // { id, seen }
let shownPlays = 0;   // cards of `seen.played` already shown
let pace = 400;
let asked = null;     // what started the table: the next seat of the same deal asks it again

const $ = (id) => document.getElementById(id);
const say = (text, error = false) => { $("status").textContent = text; $("status").className = error ? "error" : ""; };
const cardName = (code) => `${FACES[parseInt(code, 10)]} di ${SUITS[code.slice(-1)]}`;
const sleep = (ms) => new Promise((done) => setTimeout(done, ms));
const busy = (yes) => document.body.setAttribute("aria-busy", yes ? "true" : "false");  // tests wait on it

function cardElement(code, tag = "span", trumpSuit = -1) {
  const element = document.createElement(tag);
  element.className = "card";
  element.textContent = code;
  element.title = cardName(code);
  if ("DCSB".indexOf(code.slice(-1)) === trumpSuit) element.classList.add("trump");
  return element;
}

async function api(path, body) {
  const response = await fetch(path, body === undefined ? {} : {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  const answer = await response.json();
  if (!response.ok) throw new Error(answer.error || `the server answered ${response.status}`);
  return answer;
}

async function start(event) {
  event.preventDefault();
  const form = new FormData($("start"));
  asked = { players: Number(form.get("players")), seat: Number(form.get("seat")),
            others: form.get("others").split(",").map((name) => name.trim()).filter(Boolean) };
  if (form.get("seed") !== "") asked.seed = Number(form.get("seed"));
  if (form.get("name")) asked.name = form.get("name");
  const rules = (form.get("rules") || "").split(/[\s,]+/).filter(Boolean);
  if (rules.length) asked.rules = Object.fromEntries(rules.map((rule) => rule.split("=")));
  pace = Number(form.get("pace") || 0);
  await openTable(asked);
}

async function openTable(request) {
  busy(true);
  try {
    const made = await api("/api/tables", request);
    table = { id: made.id, seen: made.seen };
    shownPlays = 0;
    $("game").hidden = false;
    $("replay").hidden = true;
    await show(made.seen);
  } catch (error) { say(error.message, true); } finally { busy(false); }
}

async function decide(decision) {
  busy(true);
  try {
    await show(await api(`/api/tables/${table.id}/play`, { decision }));
  } catch (error) { say(error.message, true); } finally { busy(false); }
}

async function show(seen) {
  table.seen = seen;
  $("hand").replaceChildren();  // no card to click while the others' cards come in
  while (shownPlays < seen.played.length) {  // the strategies' replies, one by one
    const [seat, card] = seen.played[shownPlays++];
    const line = document.createElement("div");
    line.textContent = `${seat === seen.seat ? "you" : `seat ${seat} (${seen.names[seat]})`}: ${cardName(card)}`;
    $("log").prepend(line);
    if (seat !== seen.seat && pace > 0) await sleep(pace);
  }
  drawInfo(seen);
  $("table").replaceChildren(...seen.table.map((code) => cardElement(code, "span", seen.trump_suit)));
  drawAuction(seen);
  drawHand(seen);
  if (seen.done) {
    drawReplay(seen);
    await drawAnalysis(seen);
  }
}

function drawInfo(seen) {
  const trump = seen.trump_suit >= 0 ? Object.values(SUITS)[seen.trump_suit] : "not called yet";
  const faceUp = seen.briscola || seen.face_up;
  const partners = Object.entries(seen.partner_hands).map(([seat, cards]) => `seat ${seat}: ${cards.join(" ")}`);
  const signals = Object.entries(seen.partner_trumps).map(([seat, bits]) => `seat ${seat}: ${bits}`);
  const call = seen.auction && seen.auction.caller >= 0 ?
    `Seat ${seen.auction.caller} called ${cardName(seen.auction.called)} for ${seen.auction.target} points` +
    (seen.auction.partner >= 0 ? `; its partner is seat ${seen.auction.partner}.` : ".") : "";
  $("info").textContent = [
    `You are seat ${seen.seat} of ${seen.players}.`, `Trump: ${trump}${faceUp ? ` (${cardName(faceUp)})` : ""}.`,
    `Stock: ${seen.stock_size}.`, `Points: ${seen.points.join(" / ")}.`,
    partners.length ? `Partners' cards: ${partners.join("; ")}.` : "",
    signals.length ? `Partners' trump signals (honour bits): ${signals.join("; ")}.` : "", call,
  ].join(" ");
  if (seen.done) say(`The deal is over: ${seen.outcomes[seen.seat] > 0 ? "you won" :
                      seen.outcomes[seen.seat] < 0 ? "you lost" : "a draw"}.` +
                     (seen.saved ? ` Kept in ${seen.saved}.` : ""));
  else if (seen.to_move === seen.seat) say(seen.phase === "play" ? "Your card (click it, or press 1-8)." :
                                           seen.phase === "bid" ? "Your bid." : "Call a card.");
}

function drawHand(seen) {
  const mine = seen.to_move === seen.seat && seen.phase === "play";
  $("hand").replaceChildren(...seen.hand.map((code) => {
    const button = cardElement(code, "button", seen.trump_suit);
    button.disabled = !mine || !seen.legal.includes(code);
    button.addEventListener("click", () => decide(code));
    return button;
  }));
}

function drawAuction(seen) {
  const box = $("auction");
  box.hidden = !seen.auction || seen.phase === "play" || seen.done;
  if (box.hidden) return;
  box.replaceChildren();
  const title = document.createElement("p");
  title.textContent = `Highest bid: ${seen.auction.bid < 0 ? "none" : `${seen.auction.bid} by seat ${seen.auction.bidder}`}.`;
  box.append(title);
  if (seen.to_move !== seen.seat) return;
  for (const option of seen.legal) {
    const button = document.createElement("button");
    button.textContent = seen.phase === "bid" ? (option < 0 ? "pass" : `bid ${option}`) : option;
    button.addEventListener("click", () => decide(option));
    box.append(button);
  }
}

function drawReplay(seen) {
  const box = $("replay");
  box.hidden = false;
  box.replaceChildren();
  const title = document.createElement("h2");
  title.textContent = "The whole deal";
  const again = document.createElement("button");  // duplicate deals: the same cards from the next seat
  again.id = "next-seat";
  again.textContent = "the same deal from the next seat";
  again.addEventListener("click", () => {
    asked = { ...asked, seed: seen.seed, deal: seen.deal_index, seat: (seen.seat + 1) % seen.players };
    $("log").replaceChildren();
    $("analysis").hidden = true;
    openTable(asked);
  });
  box.append(title, again);
  seen.deal.hands.forEach((hand, seat) => {
    const line = document.createElement("div");
    line.append(`seat ${seat} (${seen.names[seat]}): `, ...hand.map((code) => cardElement(code, "span", seen.trump_suit)));
    box.append(line);
  });
}

async function drawAnalysis(seen) {
  const box = $("analysis");
  box.hidden = false;
  box.replaceChildren();
  const title = document.createElement("h2");
  title.textContent = "Every move valued";
  const note = document.createElement("p");
  note.textContent = "By the search from what each seat could see (briscola analyse); the par cost is " +
    "against perfect play with every hand face up, over the last tricks.";
  box.append(title, note);
  let moves, valued;
  try {
    valued = await api(`/api/tables/${table.id}/analysis`);
    moves = valued.moves;
    if (valued.par) {
      const par = document.createElement("p");
      par.id = "par";
      par.textContent = `The deal's par, every hand face up and both perfect: ${valued.par[seen.seat]} points ` +
        `for you, ${valued.par[1 - seen.seat]} for ${seen.names[1 - seen.seat]}; you took ${seen.points[seen.seat]}.`;
      box.append(par);
    }
  } catch (error) { say(error.message, true); return; }
  const order = document.createElement("button");
  order.textContent = "costliest first";
  const grid = document.createElement("table");
  const fill = (rows) => {
    grid.replaceChildren();
    const head = grid.insertRow();
    for (const name of ["trick", "seat", "played", "best", "score cost", "points cost", "verdict", "par cost"]) {
      head.insertCell().outerHTML = `<th>${name}</th>`;
    }
    for (const move of rows) {
      const row = grid.insertRow();
      row.className = move.seat === seen.seat ? "mine" : "";
      for (const value of [move.trick + 1, move.seat === seen.seat ? "you" : `${move.seat} (${move.strategy})`,
                           move.card, move.best_card, move.score_cost.toFixed(3), move.points_cost.toFixed(1),
                           move.verdict, move.par_cost === null ? "" : move.par_cost]) {
        row.insertCell().textContent = value;
      }
    }
  };
  order.addEventListener("click", () => fill([...moves].sort((a, b) => b.score_cost - a.score_cost)));
  const stepper = document.createElement("button");
  stepper.id = "replay-this";
  stepper.textContent = "replay move by move";
  stepper.addEventListener("click", () => enterReplay(valued));
  fill(moves);
  box.append(order, stepper, grid);
}

document.addEventListener("keydown", (event) => {
  if (!table || table.seen.to_move !== table.seen.seat || table.seen.phase !== "play") return;
  const index = Number(event.key) - 1;
  const code = table.seen.hand[index];
  if (code && table.seen.legal.includes(code)) decide(code);
});
$("start").addEventListener("submit", start);

// Replay mode (briscola play --replay TRACE --deal N): every hand face up, step by step.
let replay = null;
let step = 0;

function drawStep() {
  const at = replay.steps[step];
  $("replay-info").textContent = `Deal ${replay.deal_index ?? ""} of ${replay.players} players: ` +
    `${replay.names.map((name, seat) => `seat ${seat} ${name}`).join(", ")}. Card ${step} of ${replay.moves.length}. ` +
    `Final points: ${replay.points.join(" / ")}.`;
  $("replay-hands").replaceChildren(...at.hands.map((hand, seat) => {
    const line = document.createElement("div");
    line.append(`seat ${seat} (${replay.names[seat]}): `, ...hand.map((code) => cardElement(code)));
    return line;
  }));
  $("replay-table").replaceChildren(...at.table.map((code) => cardElement(code)));
  const move = replay.moves[step];
  $("replay-move").textContent = move === undefined ? "The deal is over." :
    `Next: seat ${move.seat} (${move.strategy}) plays ${cardName(move.card)}; best ${cardName(move.best_card)}; ` +
    `cost ${move.score_cost.toFixed(3)} of score, ${move.points_cost.toFixed(1)} points: ${move.verdict}` +
    (move.par_cost === null ? "." : `; ${move.par_cost} points against the face-up par.`);
  $("back").disabled = step === 0;
  $("forward").disabled = step === replay.moves.length;
}

const go = (to) => { step = Math.max(0, Math.min(replay.moves.length, to)); drawStep(); };
$("first").addEventListener("click", () => go(0));
$("back").addEventListener("click", () => go(step - 1));
$("forward").addEventListener("click", () => go(step + 1));
$("costliest").addEventListener("click", () => {
  const costs = replay.moves.map((move) => move.score_cost);
  go(costs.indexOf(Math.max(...costs)));
});
document.addEventListener("keydown", (event) => {
  if (!replay || $("replaying").hidden) return;
  if (event.key === "ArrowRight") go(step + 1);
  if (event.key === "ArrowLeft") go(step - 1);
});

function enterReplay(data) {  // a deal face up, step by step: a traced one, or the one just played
  replay = data;
  step = 0;
  $("game").hidden = true;
  $("replaying").hidden = false;
  say("Replaying the deal with every hand face up: step with the buttons or the arrow keys.");
  drawStep();
}

async function startReplay() {
  const response = await fetch("/api/replay");
  if (!response.ok) return;  // no replay: the page plays
  $("start").hidden = true;
  enterReplay(await response.json());
}
startReplay();
