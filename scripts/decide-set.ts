/**
 * `npx tsx scripts/decide-set.ts` writes eval/decisions.jsonl, the project's own labelled
 * decision set (issue 15), used by `npm run calibrate` (fits the temperatures) and
 * `npm run eval:generative` (accuracy and expected calibration error). One JSON object per
 * line: `{"id", "language", "state", "questions", "labels"}`, where `labels` gives each
 * question's correct answer (a choice's option key, a statement's `true`/`false`, a score's
 * level index).
 *
 * Two kinds of case:
 * - **Records** (mobile-money transactions, loan accounts): generated from seeded random
 *   fields (scripts/rng.ts), shown as a JSON record or as the SMS a provider sends, so each
 *   label follows from the fields by construction (a transfer's kind, whether the amount is
 *   over a threshold, a balance band, days overdue).
 * - **Customer messages** in English and the eight African languages of the spec
 *   (Swahili, Hausa, Yoruba, Igbo, Amharic, Zulu, Kinyarwanda, Somali): one message per
 *   intent and language, written for this set by the project, labelled with the intent it
 *   was written for. The author is not a native speaker of the eight languages: the
 *   messages are simple and should be reviewed by native speakers before figures on them
 *   are published.
 *
 * Licence: written for this project, Apache-2.0 like the rest of it.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rng } from './rng.ts';

/** A labelled case. */
export interface LabelledCase {
  id: string;
  /** ISO 639-3 code of the state's text */
  language: string;
  state: unknown;
  questions: Record<string, { type: 'choice' | 'noul' | 'score'; instructions: string; criteria?: unknown }>;
  /** the correct answer of each question: an option key, "true"/"false", or a level index */
  labels: Record<string, string>;
}

const KINDS = { received: 'money received', sent: 'money sent to a person', withdrawal: 'cash withdrawn at an agent', bill: 'a bill or merchant paid', airtime: 'airtime bought' } as const;
type Kind = keyof typeof KINDS;
const NAMES = ['JOHN KAMAU', 'AMINA YUSUF', 'GRACE OTIENO', 'CHINEDU OKAFOR', 'FATUMA ALI', 'PETER MWANGI', 'BLESSING ADEYEMI', 'HASSAN ABDI', 'ZANELE DLAMINI', 'JEAN BOSCO NIYONZIMA'];
const MERCHANTS = ['KPLC PREPAID', 'NAIVAS SUPERMARKET', 'NAIROBI WATER', 'DSTV', 'ZUKU FIBRE'];
const BANDS = ['under 1,000', '1,000 to 10,000', 'over 10,000'];
const OVERDUE = ['not overdue', '1 to 30 days overdue', '31 to 90 days overdue', 'more than 90 days overdue'];

const fmt = (n: number) => n.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

function transactionCase(i: number, r: () => number): LabelledCase {
  const kinds = Object.keys(KINDS) as Kind[];
  const kind = kinds[Math.floor(r() * kinds.length)]!;
  // amounts spread over four orders of magnitude, so both sides of each threshold occur
  const amount = Math.round(10 ** (1.5 + r() * 3.5));
  const balance = Math.round(10 ** (1 + r() * 4.5));
  const who = kind === 'bill' ? MERCHANTS[Math.floor(r() * MERCHANTS.length)]! : NAMES[Math.floor(r() * NAMES.length)]!;
  const code = Array.from({ length: 10 }, () => 'ABCDEFGHJKLMNPQRSTUVWXYZ0123456789'[Math.floor(r() * 34)]).join('');
  const day = 1 + Math.floor(r() * 28);
  const sms = {
    received: `${code} Confirmed. You have received Ksh${fmt(amount)} from ${who} 07${Math.floor(r() * 1e8)} on ${day}/11/26 at 10:${10 + day} AM. New M-PESA balance is Ksh${fmt(balance)}.`,
    sent: `${code} Confirmed. Ksh${fmt(amount)} sent to ${who} 07${Math.floor(r() * 1e8)} on ${day}/11/26 at 2:${10 + day} PM. New M-PESA balance is Ksh${fmt(balance)}. Transaction cost, Ksh13.00.`,
    withdrawal: `${code} Confirmed. On ${day}/11/26 at 6:${10 + day} PM Withdraw Ksh${fmt(amount)} from ${Math.floor(r() * 900000) + 100000} - ${who} AGENT. New M-PESA balance is Ksh${fmt(balance)}.`,
    bill: `${code} Confirmed. Ksh${fmt(amount)} paid to ${who}. for account ${Math.floor(r() * 1e7)} on ${day}/11/26 at 8:${10 + day} AM New M-PESA balance is Ksh${fmt(balance)}.`,
    airtime: `${code} confirmed. You bought Ksh${fmt(amount)} of airtime on ${day}/11/26 at 9:${10 + day} PM. New M-PESA balance is Ksh${fmt(balance)}.`,
  }[kind];
  const record = { type: kind, amount, currency: 'KES', balance_after: balance, counterparty: kind === 'airtime' ? null : who, date: `2026-11-${String(day).padStart(2, '0')}` };
  return {
    id: `txn-${i}`, language: 'eng', state: i % 2 === 0 ? sms : record,
    questions: {
      kind: { type: 'choice', instructions: 'What kind of transaction is this?', criteria: KINDS },
      large: { type: 'noul', instructions: 'The amount of the transaction is more than 10,000 shillings.' },
      balance: { type: 'score', instructions: 'How large is the balance after the transaction, in shillings?', criteria: BANDS },
    },
    labels: { kind, large: String(amount > 10_000), balance: String(balance < 1000 ? 0 : balance <= 10_000 ? 1 : 2) },
  };
}

function loanCase(i: number, r: () => number): LabelledCase {
  const overdue = [0, 1 + Math.floor(r() * 30), 31 + Math.floor(r() * 60), 91 + Math.floor(r() * 200)][Math.floor(r() * 4)]!;
  const principal = Math.round(500 + r() * 49_500);
  const paid = Math.round(principal * r());
  return {
    id: `loan-${i}`, language: 'eng',
    state: { account: `LN-${100000 + i}`, product: 'mobile loan', principal_kes: principal, repaid_kes: paid, outstanding_kes: principal - paid, days_past_due: overdue },
    questions: {
      overdue: { type: 'score', instructions: 'How far overdue is this loan?', criteria: OVERDUE },
      repaid_half: { type: 'noul', instructions: 'At least half of the principal has been repaid.' },
    },
    labels: { overdue: String(overdue === 0 ? 0 : overdue <= 30 ? 1 : overdue <= 90 ? 2 : 3), repaid_half: String(paid * 2 >= principal) },
  };
}

const INTENTS = {
  reversal: 'reverse a transfer sent to the wrong person',
  balance: 'know their balance',
  pin: 'unlock their account or reset their PIN',
  charges: 'complain about charges or fees',
  thanks: 'say thank you; no request',
} as const;
type Intent = keyof typeof INTENTS;

/** Customer messages, one per intent and language (see the module comment). */
const MESSAGES: Record<string, Record<Intent, string>> = {
  eng: {
    reversal: 'I sent 3,000 to the wrong number this morning. Please reverse it.',
    balance: 'Hello, how much money is left in my account?',
    pin: 'I entered the wrong PIN three times and now my account is locked. Help me.',
    charges: 'Why did you charge me 50 shillings for sending only 200? That is too much.',
    thanks: 'Thank you, the money arrived. Have a good day.',
  },
  swh: {
    reversal: 'Nimetuma pesa kwa namba isiyo sahihi. Tafadhali nirudishieni.',
    balance: 'Habari, salio langu ni kiasi gani?',
    pin: 'Nimesahau PIN yangu na akaunti yangu imefungwa. Naomba msaada.',
    charges: 'Kwa nini mmenikata ada kubwa hivi kwa kutuma pesa kidogo?',
    thanks: 'Asante sana, pesa imefika salama.',
  },
  hau: {
    reversal: 'Na tura kuɗi zuwa lambar da ba daidai ba. Don Allah a mayar mini da su.',
    balance: 'Sannu, nawa ne ya rage a asusuna?',
    pin: 'Na manta lambar sirrina kuma an kulle asusuna. Ku taimake ni.',
    charges: 'Me ya sa kuka caje ni kuɗi da yawa haka don ƙaramin aika?',
    thanks: 'Na gode sosai, kuɗin sun iso.',
  },
  yor: {
    reversal: 'Mo fi owó ránṣẹ́ sí nọ́mbà tí kò tọ́. Ẹ jọ̀ọ́, ẹ dá a padà fún mi.',
    balance: 'Ẹ kú àárọ̀, èló ló kù nínú àkáǹtì mi?',
    pin: 'Mo gbàgbé PIN mi, wọ́n sì ti ti àkáǹtì mi pa. Ẹ ràn mí lọ́wọ́.',
    charges: 'Kí ló dé tí ẹ gba owó púpọ̀ bẹ́ẹ̀ lọ́wọ́ mi fún owó kékeré tí mo fi ránṣẹ́?',
    thanks: 'Ẹ ṣé gan-an, owó náà ti dé.',
  },
  ibo: {
    reversal: 'Ezigara m ego na nọmba na-ezighi ezi. Biko weghachi ya.',
    balance: 'Ndewo, ego ole fọdụrụ n’akaụntụ m?',
    pin: 'Echefuru m PIN m, ha emechiela akaụntụ m. Biko nyere m aka.',
    charges: 'Gịnị mere unu ji were ego buru ibu maka obere ego m zigara?',
    thanks: 'Daalụ nke ukwuu, ego ahụ abatala.',
  },
  amh: {
    reversal: 'ገንዘብ ወደ ተሳሳተ ቁጥር ላክሁ። እባካችሁ መልሱልኝ።',
    balance: 'ሰላም፣ በሂሳቤ ውስጥ ምን ያህል ገንዘብ ቀረ?',
    pin: 'የሚስጥር ቁጥሬን ረሳሁ፤ ሂሳቤም ተዘግቷል። እባካችሁ እርዱኝ።',
    charges: 'ለትንሽ ገንዘብ ለምን ይህን ያህል ክፍያ ቆረጣችሁብኝ?',
    thanks: 'በጣም አመሰግናለሁ፣ ገንዘቡ ደርሷል።',
  },
  zul: {
    reversal: 'Ngithumele imali kwinombolo engeyona. Ngicela niyibuyise.',
    balance: 'Sawubona, ngisele nemali engakanani ku-akhawunti yami?',
    pin: 'Ngikhohlwe i-PIN yami futhi i-akhawunti yami ivaliwe. Ngicela usizo.',
    charges: 'Kungani ningikhokhise imali eningi kangaka ngokuthumela imali encane?',
    thanks: 'Ngiyabonga kakhulu, imali ifikile.',
  },
  kin: {
    reversal: 'Nohereje amafaranga kuri nimero itari yo. Mwansubiza amafaranga yanjye.',
    balance: 'Muraho, kuri konti yanjye hasigaye angahe?',
    pin: 'Nibagiwe umubare wanjye w’ibanga none konti yanjye yafunzwe. Mumfashe.',
    charges: 'Kuki mwankase amafaranga menshi kuri make nohereje?',
    thanks: 'Murakoze cyane, amafaranga yageze.',
  },
  som: {
    reversal: 'Lacag ayaan u diray lambar khaldan. Fadlan ii soo celiya.',
    balance: 'Salaan, immisa ayaa ka hadhay akoonkayga?',
    pin: 'Waxaan ilaaway lambarka sirta ah, akoonkaygana waa la xiray. I caawiya.',
    charges: 'Maxaad iiga jarteen lacag badan markaan diray lacag yar?',
    thanks: 'Aad baad u mahadsan tihiin, lacagtii way soo gaadhay.',
  },
};

function messageCases(): LabelledCase[] {
  const out: LabelledCase[] = [];
  for (const [language, byIntent] of Object.entries(MESSAGES)) {
    for (const [intent, text] of Object.entries(byIntent) as Array<[Intent, string]>) {
      out.push({
        id: `msg-${language}-${intent}`, language, state: text,
        questions: {
          intent: { type: 'choice', instructions: 'What does the customer want?', criteria: INTENTS },
          action: { type: 'noul', instructions: 'The customer asks the provider to do something or to answer a question.' },
        },
        labels: { intent, action: String(intent !== 'thanks') },
      });
    }
  }
  return out;
}

/** The whole set: 80 transactions (3 questions), 40 loans (2), 45 messages (2): 410 decisions. */
export function decisionSet(seed = 2026): LabelledCase[] {
  const r = rng(seed);
  return [
    ...Array.from({ length: 80 }, (_, i) => transactionCase(i, r)),
    ...Array.from({ length: 40 }, (_, i) => loanCase(i, r)),
    ...messageCases(),
  ];
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const out = join(dirname(fileURLToPath(import.meta.url)), '..', 'eval', 'decisions.jsonl');
  mkdirSync(dirname(out), { recursive: true });
  const set = decisionSet();
  writeFileSync(out, set.map((c) => JSON.stringify(c)).join('\n') + '\n');
  console.log(`wrote ${out}: ${set.length} cases, ${set.reduce((n, c) => n + Object.keys(c.labels).length, 0)} decisions`);
}
