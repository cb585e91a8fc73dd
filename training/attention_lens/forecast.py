"""Forecasting with attention: a GRU encoder-decoder that reads the last eight days of half-hourly
electricity demand (384 steps) and predicts the next day (48 steps), one step at a time.

    /usr/bin/python3 training/forecast.py --kind luong-general   # or local-p, none

Trains on ../shared/datasets/taylor/taylor.csv (holding out the last two weeks), measures MAE and
MAPE on the held-out weeks next to the seasonal-naive forecast (same time last week), exports
resources/models/taylor-<kind>.onnx in the forecasting variant of the one-file contract
(docs/model-format.md), its card, and the parity fixture test/fixtures/parity/taylor-<kind>.json.
`--write-series` also writes resources/series/taylor-holdout.csv, the part of the series the app
needs to forecast on the held-out weeks.
"""
import argparse
import csv
import datetime as dt
import json
import math
import os
import random
import time

import onnx
import torch
import torch.nn as nn

from . import metadata
from .models import GRUCell, NEG, local_attention

from . import DATASETS, STAGE
HIST, HORIZON, DAY, WEEK = 384, 48, 48, 336
HOLDOUT = 2 * WEEK
KINDS = ("none", "luong-general", "local-p")
LAGS = (WEEK, DAY)  # the residual design's seasonal-naive lag first
LEVEL = 8  # residual 2: the base is shifted by mean(last LEVEL steps) - mean(the same steps a week earlier)
FEATURES = ["value", "tod_sin", "tod_cos", "dow_sin", "dow_cos"]
STEP_FEATURES = FEATURES[1:]


# ---------------------------------------------------------------- data


def read_series(path):
    times, values = [], []
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            times.append(row["timestamp"])
            values.append(float(row["demand_mw"]))
    return times, values


def calendar(ts):
    """Time of day and day of week of an ISO timestamp, as sin/cos pairs. The app computes the
    same four numbers (calendarFeatures in src/shared/series.ts); the timestamp is read as written (UTC)."""
    t = dt.datetime.strptime(ts[:16], "%Y-%m-%dT%H:%M")
    tod = (t.hour * 60 + t.minute) / 1440.0
    dow = t.weekday() / 7.0  # Monday = 0
    return [math.sin(2 * math.pi * tod), math.cos(2 * math.pi * tod),
            math.sin(2 * math.pi * dow), math.cos(2 * math.pi * dow)]


class Series:
    def __init__(self, times, values):
        self.times, self.values = times, values
        self.N = len(values)
        self.test_start = self.N - HOLDOUT
        self.val_start = self.test_start - WEEK
        fit = values[: self.val_start]
        self.mean = sum(fit) / len(fit)
        self.std = math.sqrt(sum((v - self.mean) ** 2 for v in fit) / len(fit))
        cal = torch.tensor([calendar(t) for t in times], dtype=torch.float32)
        scaled = (torch.tensor(values, dtype=torch.float32) - self.mean) / self.std
        self.x = torch.cat([scaled.unsqueeze(1), cal], 1)  # [N, 5]
        self.scaled = scaled
        self.cal = cal

    def origins(self, split):
        """Forecast origins o (first forecast step) whose 48 targets lie inside the split."""
        if split == "train":
            return list(range(HIST, self.val_start - HORIZON + 1))
        if split == "val":
            return list(range(self.val_start, self.test_start - HORIZON + 1))
        return list(range(self.test_start, self.N - HORIZON + 1))

    def batch(self, origins):
        hist = torch.stack([self.x[o - HIST : o] for o in origins])
        cal = torch.stack([self.cal[o : o + HORIZON] for o in origins])
        target = torch.stack([self.scaled[o : o + HORIZON] for o in origins])
        return hist, cal, target


# ---------------------------------------------------------------- model


class Forecaster(nn.Module):
    """Encoder: one GRU over the history. Decoder: a GRU cell fed the previous value (its own
    forecast after the first step) and the calendar of the step it predicts; Luong attention
    with input feeding (general score), optionally local-p, or no attention (the final encoder
    state is the only context)."""

    def __init__(self, kind, hid=64, dec=64, window=24, residual=True):
        super().__init__()
        assert kind in KINDS, kind
        self.kind, self.window, self.dec_dim, self.hid = kind, window, dec, hid
        # residual 1: the step predicts a correction to the seasonal naive (the value one week
        # earlier) and also reads the value one day earlier; residual 2: the same, but the week-ago
        # values are first shifted by the change in level (the mean of the last LEVEL steps minus
        # the mean of the same steps a week earlier). encode() puts those 2 x 48 values into the
        # decoder state as two queues; each step reads and drops the front of both, so the
        # contract (inputs, outputs) is unchanged and only Z grows by 96.
        self.residual = int(residual)
        self.nq = len(LAGS) * HORIZON if residual else 0
        # What attention reads: the GRU state and the step's own inputs, so a forecast step can
        # take the value at a lag directly instead of decoding it out of a state.
        self.mem = hid if kind == "none" else hid + len(FEATURES)
        self.encoder = nn.GRU(len(FEATURES), hid, batch_first=True)
        self.init = nn.Linear(hid, dec)
        inp = 1 + len(STEP_FEATURES) + (len(LAGS) if residual else 0)
        if kind == "none":
            self.cell = GRUCell(inp + hid, dec)
            self.W_o = nn.Linear(dec + hid + inp, dec)
        else:
            # The no-attention network plus attention: the summary of the history (the final
            # encoder state, carried in the decoder state) still enters every step, and the
            # attention context comes on top; so "without attention" is this very network.
            self.cell = GRUCell(inp + hid + dec, dec)
            self.W_gen = nn.Linear(self.mem, dec, bias=False)
            # The query also sees the calendar of the step being predicted, so matching a time of
            # day or a weekday in the history (whose keys carry their own calendar) is one product.
            self.W_q = nn.Linear(len(STEP_FEATURES), dec, bias=False)
            self.W_c = nn.Linear(self.mem + dec + hid + inp, dec)
            if kind == "local-p":
                self.W_p = nn.Linear(dec, dec)
                self.v_p = nn.Linear(dec, 1, bias=False)
        self.out = nn.Linear(dec, 1)
        if self.residual:
            # start from the base forecast itself: the correction is 0 until training moves it
            nn.init.zeros_(self.out.weight)
            nn.init.zeros_(self.out.bias)

    @property
    def state_dim(self):
        return (self.dec_dim if self.kind == "none" else 2 * self.dec_dim + self.hid) + self.nq

    def queues(self, history):
        """[B, 96]: the scaled values at lag 336 and then lag 48 of the 48 steps to forecast
        (history positions S-336 .. S-289 and S-48 .. S-1)."""
        v = history[:, :, 0]
        qs = [v[:, -lag : v.shape[1] - lag + HORIZON] for lag in LAGS]
        if self.residual == 2:
            shift = v[:, -LEVEL:].mean(1, keepdim=True) - v[:, -WEEK - LEVEL : -WEEK].mean(1, keepdim=True)
            qs[0] = qs[0] + shift
        return torch.cat(qs, 1)

    def encode(self, history):
        H, last = self.encoder(history)
        init = torch.tanh(self.init(last[0]))
        q = [self.queues(history)] if self.residual else []
        if self.kind == "none":
            return last[0].unsqueeze(1), torch.cat([init] + q, 1)
        return torch.cat([H, history], 2), torch.cat([init, torch.zeros_like(init), last[0]] + q, 1)

    def _pop(self, state):
        """Splits off the queues: (rest of the state, the front values [B, len(LAGS)], the
        queues shifted by one step)."""
        if not self.residual:
            return state, None, None
        n = self.nq
        rest, q = state[:, : state.shape[1] - n], state[:, state.shape[1] - n :]
        fronts = torch.stack([q[:, i * HORIZON] for i in range(len(LAGS))], 1)
        shifted = torch.cat([torch.cat([q[:, i * HORIZON + 1 : (i + 1) * HORIZON], torch.zeros_like(q[:, :1])], 1)
                             for i in range(len(LAGS))], 1)
        return rest, fronts, shifted

    def _finish(self, out, y, fronts, shifted, next_state):
        if self.residual:
            out["forecast"] = fronts[:, 0] + y  # seasonal naive + correction
            out["next_state"] = torch.cat([next_state, shifted], 1)
        else:
            out["forecast"], out["next_state"] = y, next_state
        return out

    def step(self, prev, feats, state, H, mask, override, override_on, K=None):
        state, fronts, shifted = self._pop(state)
        x = torch.cat([prev.unsqueeze(1), feats] + ([fronts] if self.residual else []), 1)
        out = {}
        if self.kind == "none":
            c = H[:, 0]
            s = self.cell(torch.cat([x, c], 1), state)
            y = self.out(torch.tanh(self.W_o(torch.cat([s, c, x], 1)))).squeeze(1)
            return self._finish(out, y, fronts, shifted, s)
        if K is None:
            K = self.W_gen(H)
        d = self.dec_dim
        s_prev, feed, summary = state[:, :d], state[:, d : 2 * d], state[:, 2 * d :]
        s = self.cell(torch.cat([x, summary, feed], 1), s_prev)
        scores = torch.bmm(K, (s + self.W_q(feats)).unsqueeze(2)).squeeze(2)
        if self.kind == "local-p":
            p = mask.sum(1, keepdim=True) * torch.sigmoid(self.v_p(torch.tanh(self.W_p(s))))
            weights, local = local_attention(scores, mask, p, self.window, True)
            out.update(local)
        else:
            weights = torch.softmax(torch.where(mask > 0, scores, torch.full_like(scores, NEG)), 1)
        weights = override_on * override + (1 - override_on) * weights
        c = torch.bmm(weights.unsqueeze(1), H).squeeze(1)
        h_tilde = torch.tanh(self.W_c(torch.cat([c, s, summary, x], 1)))
        out["attention"] = weights
        out["scores"] = scores
        return self._finish(out, self.out(h_tilde).squeeze(1), fronts, shifted, torch.cat([s, h_tilde, summary], 1))

    def forward(self, history, cal, keep=False):
        """Free-running forecast [B,48] (each step fed the previous forecast, as at inference)."""
        H, state = self.encode(history)
        B, S = H.shape[0], H.shape[1]
        mask = torch.ones(B, S)
        zero_w, off = torch.zeros(B, S), torch.zeros(B, 1)
        K = None if self.kind == "none" else self.W_gen(H)
        prev = history[:, -1, 0]
        preds, steps = [], []
        for t in range(HORIZON):
            o = self.step(prev, cal[:, t], state, H, mask, zero_w, off, K=K)
            state, prev = o["next_state"], o["forecast"]
            preds.append(prev)
            if keep:
                steps.append({k: v for k, v in o.items() if k != "next_state"})
        return torch.stack(preds, 1), steps


def step_outputs(kind):
    if kind == "none":
        return ["forecast", "next_state"]
    base = ["forecast", "next_state", "attention", "scores"]
    return base + ["position", "window", "gaussian", "align"] if kind == "local-p" else base


# ---------------------------------------------------------------- metrics


def metrics(pred, actual):
    """MAE (MW) and MAPE (%) over every forecast step of every origin."""
    err = (pred - actual).abs()
    return {"mae": round(err.mean().item(), 1), "mape": round((err / actual.abs()).mean().item() * 100, 2)}


@torch.no_grad()
def forecast_mw(model, series, origins, batch=128):
    model.eval()
    out = []
    for k in range(0, len(origins), batch):
        hist, cal, _ = series.batch(origins[k : k + batch])
        out.append(model(hist, cal)[0])
    return torch.cat(out) * series.std + series.mean


def actual_mw(series, origins):
    return torch.tensor([series.values[o : o + HORIZON] for o in origins])


def seasonal_naive(series, origins):
    return torch.tensor([series.values[o - WEEK : o - WEEK + HORIZON] for o in origins])


def level_naive(series, origins):
    """The seasonal naive shifted by the change in level (what residual 2 corrects)."""
    v = series.values
    out = []
    for o in origins:
        shift = sum(v[o - LEVEL : o]) / LEVEL - sum(v[o - WEEK - LEVEL : o - WEEK]) / LEVEL
        out.append([x + shift for x in v[o - WEEK : o - WEEK + HORIZON]])
    return torch.tensor(out)


# ---------------------------------------------------------------- export


class Combined(nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, history, encoder_states, state, prev_value, step_features, src_mask, attn_override, override_on):
        enc, init = self.model.encode(history)
        o = self.model.step(prev_value, step_features, state, encoder_states, src_mask, attn_override,
                            override_on.unsqueeze(1))
        return (enc, init) + tuple(o[k] for k in step_outputs(self.model.kind))


INPUTS = ["history", "encoder_states", "state", "prev_value", "step_features", "src_mask", "attn_override", "override_on"]


def export(model, series, info, onnx_path):
    model.eval()
    B, S = 2, HIST
    Sm = 1 if model.kind == "none" else S
    dummy = (torch.randn(B, S, len(FEATURES)), torch.zeros(B, Sm, model.mem), torch.zeros(B, model.state_dim),
             torch.zeros(B), torch.zeros(B, len(STEP_FEATURES)), torch.ones(B, Sm), torch.zeros(B, Sm), torch.zeros(B))
    outs = ["encoder_out", "decoder_init"] + step_outputs(model.kind)
    S_axes = {0: "batch", 1: "history"}
    axes = {"history": S_axes, "encoder_states": S_axes, "src_mask": S_axes, "attn_override": S_axes,
            "state": {0: "batch"}, "prev_value": {0: "batch"}, "step_features": {0: "batch"},
            "override_on": {0: "batch"}, "encoder_out": S_axes, "decoder_init": {0: "batch"},
            "forecast": {0: "batch"}, "next_state": {0: "batch"}, "attention": S_axes, "scores": S_axes,
            "gaussian": S_axes, "align": S_axes, "position": {0: "batch"}, "window": {0: "batch"}}
    if model.kind == "none":
        for k in ("encoder_states", "encoder_out", "src_mask", "attn_override"):
            axes[k] = {0: "batch"}
    torch.onnx.export(Combined(model), dummy, onnx_path, input_names=INPUTS, output_names=outs,
                      dynamic_axes={k: v for k, v in axes.items() if k in INPUTS + outs}, opset_version=17,
                      do_constant_folding=False)
    m = onnx.load(onnx_path)
    forecast_spec = {
        "history": HIST, "horizon": HORIZON, "period_minutes": 30, "series": "demand_mw", "unit": "MW",
        "features": FEATURES, "step_features": STEP_FEATURES,
        "calendar": "tod = (hour*60+minute)/1440, dow = weekday/7 (Monday 0), each as sin(2πx), cos(2πx), "
                    "from the timestamp as written",
        "scaling": {"mean": series.mean, "std": series.std},
        "seasonal_lags": [DAY, WEEK],
    }
    m.producer_name = "attention-lens training/forecast.py"
    metadata.write(m, metadata.forecaster(info, model, forecast_spec), onnx_path)


@torch.no_grad()
def write_parity(model, series, origins, path, name):
    cases = []
    for o in origins:
        hist, cal, _ = series.batch([o])
        pred, steps = model(hist, cal, keep=True)
        case = {"origin": series.times[o], "forecast": [round(v, 3) for v in (pred[0] * series.std + series.mean).tolist()]}
        for key in ("attention", "position"):
            # The full 48 × 384 attention for the first origin only: it is most of the file.
            if steps and key in steps[0] and (key == "position" or o == origins[0]):
                # 8 decimals: far below the 1e-4 the parity test allows, and a third of the size
                rows = [st[key][0].tolist() for st in steps]
                case[key] = [[round(v, 8) for v in r] if isinstance(r, list) else round(r, 8) for r in rows]
        cases.append(case)
    with open(path, "w") as f:
        json.dump({"model": name, "cases": cases}, f)


RESIDUAL_TEXT = {
    1: "Each step predicts a correction to the seasonal naive (the value one week earlier) and also reads the value "
       "one day earlier; both come from the history and travel in the decoder state (its last 96 numbers).",
    2: f"Each step predicts a correction to the level-adjusted seasonal naive (the value one week earlier plus the "
       f"mean of the last {LEVEL} history steps minus the mean of the same steps a week earlier) and also reads the "
       f"value one day earlier; both come from the history and travel in the decoder state (its last 96 numbers).",
}


def write_card(info, path):
    t, s, tr = info["test"], info["sizes"], info["training"]
    kind = info["kind"]
    att = {"none": "none (the final encoder state is the only context)",
           "luong-general": "Luong global attention, general score, input feeding",
           "local-p": f"Luong local-p attention, window half-width D = {info['window']} (σ = D/2), general score"}[kind]
    rows = "\n".join(f"| {h['steps']} | {h['mae']} | {h['seasonal_naive_mae']} | {h.get('level_naive_mae', '')} |"
                     for h in t["by_horizon"])
    text = f"""# {info['name']}

Forecasting: half-hourly electricity demand (MW), England and Wales. Reads the last {HIST} steps
(8 days) and predicts the next {HORIZON} (one day), step by step. Attention: {att}.
{RESIDUAL_TEXT.get(info.get("residual"), "")}

- **Data**: J.W. Taylor (2003), "Short-term electricity demand forecasting using double seasonal
  exponential smoothing", JORS 54, 799–805 (the `taylor` series of the R package `forecast`):
  5 June – 27 August 2000. Training origins until {t['train_until']}, validation week for choosing
  the epoch, the last two weeks ({t['set']}) held out. Research and teaching use; cite the paper.
- **Inputs**: value scaled by mean {info['scaling']['mean']:.1f} and standard deviation
  {info['scaling']['std']:.1f} MW (training part), time of day and day of week as sin/cos pairs;
  each decoder step gets its previous forecast and the calendar of the step it predicts.
- **Architecture**: GRU encoder ({s['enc_hidden']}), GRU-cell decoder ({s['dec_hidden']}),
  {s['parameters']:,} parameters.
- **Training**: {tr['origins']:,} origins, cosine schedule over {tr['epochs']} epochs, stopped after
  {tr.get('epochs_run', tr['epochs'])} (no better validation MAE for {tr.get('patience') or 'n/a'} epochs; best validation epoch
  {tr['best_epoch']} kept), batch {tr['batch']}, Adam lr {tr['lr']}, L1 loss on the free-running
  forecast, {tr['minutes']} minutes on {tr['threads']} CPU thread(s), seed {tr['seed']}.
- **Test**: every origin of the held-out weeks whose whole day ahead is inside them
  ({t['origins']} origins, {t['origins'] * HORIZON:,} forecast steps):
  **MAE {t['mae']} MW, MAPE {t['mape']} %**; seasonal naive (same time last week) on the same
  steps: MAE {t['seasonal_naive']['mae']} MW, MAPE {t['seasonal_naive']['mape']} %; the seasonal naive
  shifted by the change in level over the last {LEVEL} steps (the base the residual design corrects):
  MAE {t.get('level_naive', {}).get('mae')} MW. Best validation MAE {tr.get('best_val_mae')} MW.

| steps ahead | MAE (MW) | seasonal naive MAE (MW) | level-adjusted naive MAE (MW) |
| --- | --- | --- | --- |
{rows}

Measured by `/usr/bin/python3 training/forecast.py --kind {kind}`; `attention-lens forecast-eval`
re-measures it from the ONNX file.
"""
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def write_series(series, path):
    """The held-out weeks with the history their first origin needs: what the app forecasts on."""
    start = series.test_start - HIST
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", newline="") as f:
        f.write("timestamp,demand_mw\n")
        for i in range(start, series.N):
            f.write(f"{series.times[i]},{series.values[i]:g}\n")


# ---------------------------------------------------------------- main


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kind", default="luong-general", choices=KINDS)
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--hid", type=int, default=64)
    ap.add_argument("--window", type=int, default=24)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--patience", type=int, default=8,
                    help="stop when the validation MAE has not improved for this many epochs (0: never)")
    ap.add_argument("--residual", type=int, default=2, choices=(0, 1, 2),
                    help="0: predict the value; 1: a correction to the seasonal naive; "
                         "2: a correction to the level-adjusted seasonal naive")
    ap.add_argument("--name", default=None)
    ap.add_argument("--limit", type=int, default=0, help="smoke tests: only this many training origins")
    ap.add_argument("--no-export", action="store_true", help="design runs: train and measure only")
    ap.add_argument("--out-dir", default=os.path.join(STAGE, "models"))
    ap.add_argument("--fixture-dir", default=os.path.join(STAGE, "parity"))
    ap.add_argument("--write-series", default=None, metavar="PATH",
                    help="also write the held-out series the app forecasts on to PATH")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    rng = random.Random(a.seed)
    name = a.name or f"taylor-{a.kind}"
    series = Series(*read_series(os.path.join(DATASETS, "taylor", "taylor.csv")))
    if a.write_series:
        write_series(series, a.write_series)
    model = Forecaster(a.kind, a.hid, a.hid, a.window, a.residual)
    params = sum(p.numel() for p in model.parameters())
    train_o, val_o, test_o = series.origins("train"), series.origins("val"), series.origins("test")
    if a.limit:
        train_o = train_o[:: max(1, len(train_o) // a.limit)][: a.limit]
    print(f"{name}: {len(train_o)} train / {len(val_o)} val / {len(test_o)} test origins, {params} parameters", flush=True)
    opt = torch.optim.Adam(model.parameters(), lr=a.lr)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, a.epochs)
    val_actual = actual_mw(series, val_o)
    print(f"validation week: seasonal naive MAE {metrics(seasonal_naive(series, val_o), val_actual)['mae']}, "
          f"level-adjusted {metrics(level_naive(series, val_o), val_actual)['mae']}", flush=True)
    best, best_state, best_epoch, log = float("inf"), None, 0, []
    t0 = time.time()
    for epoch in range(a.epochs):
        model.train()
        order = train_o[:]
        rng.shuffle(order)
        tot, n = 0.0, 0
        for k in range(0, len(order), a.batch):
            hist, cal, target = series.batch(order[k : k + a.batch])
            pred, _ = model(hist, cal)
            loss = (pred - target).abs().mean()
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            tot += loss.item()
            n += 1
        sched.step()
        val = metrics(forecast_mw(model, series, val_o), val_actual)
        row = {"epoch": epoch + 1, "train_l1": round(tot / n, 4), "val_mae": val["mae"], "val_mape": val["mape"],
               "minutes": round((time.time() - t0) / 60, 2)}
        log.append(row)
        print(json.dumps(row), flush=True)
        if val["mae"] < best:
            best, best_epoch = val["mae"], epoch + 1
            best_state = {k: v.clone() for k, v in model.state_dict().items()}
        elif a.patience and epoch + 1 - best_epoch >= a.patience:
            print(f"stopping: no better validation MAE for {a.patience} epochs", flush=True)
            break
    minutes = (time.time() - t0) / 60
    model.load_state_dict(best_state)
    model.eval()
    pred, actual, naive = forecast_mw(model, series, test_o), actual_mw(series, test_o), seasonal_naive(series, test_o)
    lnaive = level_naive(series, test_o)
    by_h = []
    for lo, hi in ((1, 12), (13, 24), (25, 36), (37, 48)):
        by_h.append({"steps": f"{lo}-{hi}", "mae": metrics(pred[:, lo - 1 : hi], actual[:, lo - 1 : hi])["mae"],
                     "seasonal_naive_mae": metrics(naive[:, lo - 1 : hi], actual[:, lo - 1 : hi])["mae"],
                     "level_naive_mae": metrics(lnaive[:, lo - 1 : hi], actual[:, lo - 1 : hi])["mae"]})
    test = dict(metrics(pred, actual), set=f"{series.times[series.test_start][:10]} to {series.times[-1][:10]}",
                origins=len(test_o), seasonal_naive=metrics(naive, actual), level_naive=metrics(lnaive, actual),
                by_horizon=by_h,
                train_until=series.times[series.val_start - 1][:10])
    print(f"{name}: best val MAE {best} (epoch {best_epoch}); test MAE {test['mae']} MW, MAPE {test['mape']} %; "
          f"seasonal naive MAE {test['seasonal_naive']['mae']}, MAPE {test['seasonal_naive']['mape']}; by horizon "
          + " ".join(f"{h['steps']}:{h['mae']}/{h['seasonal_naive_mae']}" for h in by_h), flush=True)
    info = {
        "name": name, "kind": a.kind, "window": a.window if a.kind == "local-p" else 0, "residual": a.residual,
        "scaling": {"mean": series.mean, "std": series.std},
        "sizes": {"enc_hidden": a.hid, "dec_hidden": a.hid, "parameters": params},
        "training": {"origins": len(train_o), "epochs": a.epochs, "epochs_run": len(log), "patience": a.patience,
                     "best_epoch": best_epoch, "best_val_mae": best, "batch": a.batch,
                     "lr": a.lr, "minutes": round(minutes, 1), "threads": a.threads, "seed": a.seed, "log": log},
        "test": test,
    }
    if a.no_export:
        return
    os.makedirs(a.out_dir, exist_ok=True)
    os.makedirs(a.fixture_dir, exist_ok=True)
    path = os.path.join(a.out_dir, name + ".onnx")
    export(model, series, info, path)
    write_parity(model, series, [series.test_start, series.test_start + 100, series.N - HORIZON],
                 os.path.join(a.fixture_dir, name + ".json"), name)
    write_card(info, os.path.join(a.out_dir, name + ".md"))
    print(f"wrote {path}", flush=True)


if __name__ == "__main__":
    main()
