/** The × that closes a notice; `hoverClass` gives the hover tint of the notice's colour. */
export function DismissButton({ onClick, hoverClass }: { onClick: () => void; hoverClass: string }) {
  return (
    <button type="button" onClick={onClick} aria-label="Dismiss" className={`-my-2 -mr-3 shrink-0 rounded p-2 focus-visible:outline-2 focus-visible:outline-sky-500 ${hoverClass}`}>
      <svg aria-hidden viewBox="0 0 20 20" className="size-4" fill="none" stroke="currentColor" strokeWidth={2} strokeLinecap="round">
        <path d="M5 5l10 10M15 5L5 15" />
      </svg>
    </button>
  );
}
