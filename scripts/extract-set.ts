/**
 * `npx tsx scripts/extract-set.ts` writes eval/extraction.jsonl, the project's own labelled
 * extraction set (issue 15), used by `npm run eval:generative` (field-level precision,
 * recall and F1) and `npm run calibrate -- --model mist-extract-1.0` (the field-confidence
 * temperature). One JSON object per line: `{"id", "kind", "language", "template",
 * "instructions", "text", "labels"}`, where `labels` is the filled template.
 *
 * Every document is generated from seeded random fields (scripts/rng.ts) in the layout of
 * an everyday African or English document, so its labels follow from the fields by
 * construction: mobile-money messages (English and Swahili, in the form M-PESA sends),
 * bank alerts, receipts with line items, utility bills, meeting notices (letters) and
 * registration forms. Names, numbers and places are invented.
 *
 * Licence: written for this project, Apache-2.0 like the rest of it.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rng } from './rng.ts';

/** A labelled document. */
export interface LabelledDocument {
  id: string;
  kind: 'mobile-money' | 'bank' | 'receipt' | 'bill' | 'letter' | 'form';
  /** ISO 639-3 code of the document's text */
  language: string;
  template: Record<string, unknown>;
  instructions: string | null;
  text: string;
  /** the template filled in correctly */
  labels: Record<string, unknown>;
}

const PEOPLE = ['JOHN KAMAU', 'AMINA YUSUF', 'GRACE OTIENO', 'CHINEDU OKAFOR', 'FATUMA ALI', 'PETER MWANGI', 'BLESSING ADEYEMI', 'HASSAN ABDI', 'ZANELE DLAMINI', 'JEAN BOSCO NIYONZIMA'];
const SHOPS = ['NAIVAS SUPERMARKET', 'QUICKMART', 'SHOPRITE LEKKI', 'MAMA NJERI DUKA', 'KAMPALA FRESH MART'];
const GOODS: Array<[string, number]> = [['Sugar 2kg', 320], ['Maize flour 2kg', 210], ['Milk 500ml', 65], ['Bread', 70], ['Cooking oil 1L', 380], ['Rice 1kg', 190], ['Soap bar', 110], ['Eggs (tray)', 450], ['Tea leaves 250g', 140], ['Tomatoes 1kg', 120]];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const TOWNS = ['Nairobi', 'Kisumu', 'Lagos', 'Kigali', 'Kampala', 'Dar es Salaam', 'Accra', 'Mombasa'];

const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
const fmt = (n: number) => n.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const pad = (n: number) => String(n).padStart(2, '0');
const code = (r: () => number, n: number) => Array.from({ length: n }, () => 'ABCDEFGHJKLMNPQRSTUVWXYZ0123456789'[Math.floor(r() * 34)]).join('');
const digits = (r: () => number, n: number) => Array.from({ length: n }, () => Math.floor(r() * 10)).join('');

function mobileMoney(i: number, r: () => number): LabelledDocument {
  const kind = pick(r, ['received', 'sent'] as const);
  const amount = Math.round(10 ** (2 + r() * 3));
  const balance = Math.round(10 ** (2 + r() * 3.5));
  const who = pick(r, PEOPLE);
  const phone = `07${digits(r, 8)}`;
  const ref = code(r, 10);
  const day = 1 + Math.floor(r() * 28);
  const swahili = i % 3 === 2;
  const text = swahili
    ? (kind === 'received'
      ? `${ref} Imethibitishwa. Umepokea Ksh${fmt(amount)} kutoka kwa ${who} ${phone} tarehe ${day}/11/26 saa 10:15 AM. Salio lako jipya la M-PESA ni Ksh${fmt(balance)}.`
      : `${ref} Imethibitishwa. Ksh${fmt(amount)} imetumwa kwa ${who} ${phone} tarehe ${day}/11/26 saa 2:40 PM. Salio lako jipya la M-PESA ni Ksh${fmt(balance)}.`)
    : (kind === 'received'
      ? `${ref} Confirmed. You have received Ksh${fmt(amount)} from ${who} ${phone} on ${day}/11/26 at 10:15 AM. New M-PESA balance is Ksh${fmt(balance)}.`
      : `${ref} Confirmed. Ksh${fmt(amount)} sent to ${who} ${phone} on ${day}/11/26 at 2:40 PM. New M-PESA balance is Ksh${fmt(balance)}. Transaction cost, Ksh13.00.`);
  return {
    id: `mm-${i}`, kind: 'mobile-money', language: swahili ? 'swh' : 'eng',
    template: { reference: 'verbatim-string', direction: ['received', 'sent'], amount: 'number', counterparty: 'verbatim-string', phone: 'verbatim-string', date: 'date', balance: 'number' },
    instructions: 'Dates are written day/month/year with a two-digit year in the 2000s.',
    text, labels: { reference: ref, direction: kind, amount, counterparty: who, phone, date: `2026-11-${pad(day)}`, balance },
  };
}

function bank(i: number, r: () => number): LabelledDocument {
  const direction = pick(r, ['debit', 'credit'] as const);
  const currency = pick(r, ['NGN', 'KES', 'GHS', 'UGX'] as const);
  const amount = Math.round(10 ** (3 + r() * 3)) + Math.round(r() * 100) / 100;
  const balance = Math.round(10 ** (3 + r() * 4)) + Math.round(r() * 100) / 100;
  const last4 = digits(r, 4);
  const month = Math.floor(r() * 12);
  const day = 1 + Math.floor(r() * 28);
  const ref = `TRF/${2026}/${digits(r, 6)}`;
  const text = `Dear Customer, your account ****${last4} has been ${direction === 'debit' ? 'debited' : 'credited'} with ${currency} ${fmt(amount)} on ${pad(day)}-${MONTHS[month]}-2026. Available balance: ${currency} ${fmt(balance)}. Ref: ${ref}. Call 0700 000 000 if you did not authorise this.`;
  return {
    id: `bank-${i}`, kind: 'bank', language: 'eng',
    template: { account_last4: 'verbatim-string', direction: ['debit', 'credit'], currency: ['NGN', 'KES', 'GHS', 'UGX', 'ZAR'], amount: 'number', date: 'date', balance: 'number', reference: 'verbatim-string' },
    instructions: null,
    text, labels: { account_last4: last4, direction, currency, amount, date: `2026-${pad(month + 1)}-${pad(day)}`, balance, reference: ref },
  };
}

function receipt(i: number, r: () => number): LabelledDocument {
  const shop = pick(r, SHOPS);
  const n = 1 + Math.floor(r() * 4);
  // Fisher–Yates with the seeded PRNG (a sort with a random comparator depends on the engine)
  const shuffled = [...GOODS];
  for (let k = shuffled.length - 1; k > 0; k--) { const j = Math.floor(r() * (k + 1)); [shuffled[k], shuffled[j]] = [shuffled[j]!, shuffled[k]!]; }
  const chosen = shuffled.slice(0, n);
  const items = chosen.map(([name, price]) => ({ name, qty: 1 + Math.floor(r() * 3), price }));
  const total = items.reduce((s, it) => s + it.qty * it.price, 0);
  const payment = pick(r, ['cash', 'card', 'mobile money'] as const);
  const day = 1 + Math.floor(r() * 28);
  const lines = items.map((it) => `${it.name.padEnd(18)} ${it.qty} x ${fmt(it.price)}  ${fmt(it.qty * it.price)}`);
  const text = [`${shop}`, `${pick(r, TOWNS)} branch`, `Date: ${pad(day)}/10/2026  Till 04`, '------------------------------', ...lines, '------------------------------', `TOTAL KES ${fmt(total)}`, `Paid by ${payment.toUpperCase()}`, 'Thank you for shopping with us'].join('\n');
  return {
    id: `receipt-${i}`, kind: 'receipt', language: 'eng',
    template: { merchant: 'verbatim-string', date: 'date', items: [{ name: 'string', qty: 'integer', price: 'number' }], total: 'number', payment: ['cash', 'card', 'mobile money'] },
    instructions: 'Item prices are per unit.',
    text, labels: { merchant: shop, date: `2026-10-${pad(day)}`, items, total, payment },
  };
}

function bill(i: number, r: () => number): LabelledDocument {
  const provider = pick(r, ['KENYA POWER', 'NAIROBI CITY WATER', 'UMEME', 'ZUKU FIBRE']);
  const account = digits(r, 9);
  const due = Math.round(500 + r() * 9500);
  const month = Math.floor(r() * 11);
  const day = 1 + Math.floor(r() * 28);
  const name = pick(r, PEOPLE);
  const text = `${provider}\nBILL FOR ${MONTHS[month]!.toUpperCase()} 2026\nCustomer: ${name}\nAccount number: ${account}\nPrevious balance: KES 0.00\nCurrent charges: KES ${fmt(due)}\nAmount due: KES ${fmt(due)}\nPay by: ${day} ${MONTHS[month + 1]} 2026\nPay via M-PESA Paybill 888880, account ${account}.`;
  return {
    id: `bill-${i}`, kind: 'bill', language: 'eng',
    template: { provider: 'verbatim-string', customer: 'verbatim-string', account_number: 'verbatim-string', amount_due: 'number', due_date: 'date' },
    instructions: null,
    text, labels: { provider, customer: name, account_number: account, amount_due: due, due_date: `2026-${pad(month + 2)}-${pad(day)}` },
  };
}

function letter(i: number, r: () => number): LabelledDocument {
  const org = pick(r, ['Kisumu Youth Savings Group', 'Umoja Women Chama', 'Lagos Traders Association', 'Kigali Teachers Cooperative']);
  const venue = pick(r, ['the community hall', 'St. Mary\'s school grounds', 'the chief\'s office', 'the market shed']);
  const day = 1 + Math.floor(r() * 28);
  const hour = 9 + Math.floor(r() * 8);
  const agenda = ['Reading of the last minutes', 'Loan repayments', 'Election of a new treasurer', 'Plans for the December party', 'Any other business'].filter(() => r() < 0.6);
  const items = agenda.length > 0 ? agenda : ['Any other business'];
  const chair = pick(r, PEOPLE);
  const text = `${org}\n\nNOTICE OF MEETING\n\nDear members,\nYou are invited to the monthly meeting on ${day} December 2026 at ${hour}:00 at ${venue}.\nAgenda:\n${items.map((a, k) => `${k + 1}. ${a}`).join('\n')}\n\nPlease come on time.\nYours faithfully,\n${chair}\nChairperson`;
  return {
    id: `letter-${i}`, kind: 'letter', language: 'eng',
    template: { organisation: 'verbatim-string', date: 'date', venue: 'string', agenda: ['string'], signed_by: 'verbatim-string' },
    instructions: null,
    text, labels: { organisation: org, date: `2026-12-${pad(day)}`, venue, agenda: items, signed_by: chair },
  };
}

function form(i: number, r: () => number): LabelledDocument {
  const name = pick(r, PEOPLE);
  const id = digits(r, 8);
  const year = 1960 + Math.floor(r() * 45);
  const month = 1 + Math.floor(r() * 12);
  const day = 1 + Math.floor(r() * 28);
  const phone = `+2547${digits(r, 8)}`;
  const town = pick(r, TOWNS);
  const member = r() < 0.5;
  const text = `MEMBER REGISTRATION FORM\nFull name: ${name}\nNational ID No.: ${id}\nDate of birth (DD/MM/YYYY): ${pad(day)}/${pad(month)}/${year}\nPhone: ${phone}\nTown: ${town}\nAlready a member of another SACCO? [${member ? 'X' : ' '}] Yes  [${member ? ' ' : 'X'}] No\nSignature: ________`;
  return {
    id: `form-${i}`, kind: 'form', language: 'eng',
    template: { name: 'verbatim-string', national_id: 'verbatim-string', date_of_birth: 'date', phone: 'verbatim-string', town: 'string', other_sacco_member: 'boolean' },
    instructions: null,
    text, labels: { name, national_id: id, date_of_birth: `${year}-${pad(month)}-${pad(day)}`, phone, town, other_sacco_member: member },
  };
}

/** The whole set: 30 mobile-money messages (10 in Swahili), 20 bank alerts, 20 receipts, 15 bills, 15 notices, 15 forms. */
export function extractionSet(seed = 2026): LabelledDocument[] {
  const r = rng(seed);
  const make = (n: number, f: (i: number, r: () => number) => LabelledDocument) => Array.from({ length: n }, (_, i) => f(i, r));
  return [...make(30, mobileMoney), ...make(20, bank), ...make(20, receipt), ...make(15, bill), ...make(15, letter), ...make(15, form)];
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const out = join(dirname(fileURLToPath(import.meta.url)), '..', 'eval', 'extraction.jsonl');
  mkdirSync(dirname(out), { recursive: true });
  const set = extractionSet();
  writeFileSync(out, set.map((d) => JSON.stringify(d)).join('\n') + '\n');
  console.log(`wrote ${out}: ${set.length} documents`);
}
