"use client";
import type { FormEvent, ReactNode } from "react";
import { Button } from "./button";
import { Dialog } from "./dialog";
import { FormError } from "./field";

interface FormProps {
  onSubmit: (e: FormEvent) => void;
  /** The error that belongs to no single field. */
  error?: string;
  submitLabel: ReactNode;
  submitting?: boolean;
  submitTestId?: string;
  className?: string;
  /** The fields. */
  children: ReactNode;
}

/**
 * A dialog holding one form: the form-level error first, then the fields, then Cancel and the
 * submit button. Fields validate in `onSubmit` (the browser's own checks are off).
 */
export function FormDialog({ open, onClose, title, description, wide, ...form }: FormProps & { open: boolean; onClose: () => void; title: string; description?: ReactNode; wide?: boolean }) {
  return (
    <Dialog open={open} onClose={onClose} title={title} description={description} wide={wide}>
      <DialogForm {...form} onCancel={onClose} />
    </Dialog>
  );
}

/** The form of a `FormDialog`, for dialogs that show something else once it is sent (a new key's secret). */
export function DialogForm({ onSubmit, onCancel, error, submitLabel, submitting, submitTestId, className = "space-y-4", children }: FormProps & { onCancel: () => void }) {
  return (
    <form onSubmit={onSubmit} noValidate className={className}>
      <FormError message={error} />
      {children}
      <div className="flex justify-end gap-2 border-t border-zinc-100 pt-4">
        <Button variant="secondary" onClick={onCancel}>
          Cancel
        </Button>
        <Button type="submit" loading={submitting} data-testid={submitTestId}>
          {submitLabel}
        </Button>
      </div>
    </form>
  );
}
